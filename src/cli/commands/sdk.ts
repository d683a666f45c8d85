/** `isocode sdk`: prints the TypeScript SDK (or the run_code prompt) of the configured tools. */
import { writeFile } from 'node:fs/promises';
import { renderSdk, renderSdkPrompt, type RenderedSdk } from '../../sdk/index.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { loadToolsFile, openCliRuntime } from '../open.js';
import type { Io } from '../output.js';
import type { RuntimeFlags } from './shared.js';

/** Flags of `isocode sdk`. */
export interface SdkFlags extends RuntimeFlags {
  out?: string | undefined;
  format?: string | undefined;
}

const MAX_WARNINGS_SHOWN = 20;

async function renderFor(flags: SdkFlags): Promise<RenderedSdk> {
  // A JSON catalog alone needs no runtime: the generator is pure.
  if (flags.tools !== undefined && flags.config === undefined) {
    const file = await loadToolsFile(flags.tools);
    if (file.kind === 'catalog') return renderSdk(file.catalog);
  }
  const opened = await openCliRuntime({
    config: flags.config,
    tools: flags.tools,
    scope: flags.scope,
    codeMode: false,
  });
  try {
    return opened.runtime.sdk(opened.scope);
  } finally {
    await opened.close();
  }
}

/** Runs the command; resolves to the exit code. */
export async function sdkCommand(flags: SdkFlags, io: Io): Promise<number> {
  const format = flags.format ?? 'd.ts';
  if (format !== 'd.ts' && format !== 'prompt')
    throw new UsageError(`--format must be "d.ts" or "prompt", got "${format}"`);
  const sdk = await renderFor(flags);
  const text = format === 'prompt' ? renderSdkPrompt(sdk) : sdk.text;
  for (const w of sdk.warnings.slice(0, MAX_WARNINGS_SHOWN))
    io.err(
      `warning: ${w.tool === '' ? '' : `${w.tool} `}${w.pointer === '' ? '' : `${w.pointer}: `}${w.message}`,
    );
  if (sdk.warnings.length > MAX_WARNINGS_SHOWN)
    io.err(`warning: ... and ${sdk.warnings.length - MAX_WARNINGS_SHOWN} more`);
  if (flags.out !== undefined) {
    try {
      await writeFile(flags.out, text);
    } catch (err) {
      throw new UsageError(`cannot write ${flags.out}: ${(err as Error).message}`);
    }
    io.err(
      `wrote ${flags.out}: ${sdk.bindings.length} tools, ${text.length} characters, sha256 ${sdk.hash.slice(0, 12)}`,
    );
  } else io.out(text);
  return EXIT_OK;
}
