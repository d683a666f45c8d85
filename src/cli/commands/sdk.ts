/**
 * `isocode sdk`: prints the TypeScript SDK (or the run_code prompt) of the configured tools, or with
 * `--stats` its size against the catalog's JSON wire (tokens and characters; `--format json` for JSON).
 */
import { writeFile } from 'node:fs/promises';
import {
  type RenderedSdk,
  type SdkStats,
  renderSdk,
  renderSdkPrompt,
  sdkStats,
} from '../../sdk/index.js';
import { tokenCountsExact } from '../../tokens.js';
import type { ToolSchema } from '../../tools/types.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { loadToolsFile, openCliRuntime } from '../open.js';
import { humanJson, type Io } from '../output.js';
import type { RuntimeFlags } from './shared.js';

/** Flags of `isocode sdk`. */
export interface SdkFlags extends RuntimeFlags {
  out?: string | undefined;
  format?: string | undefined;
  /** Print the SDK's size against the JSON wire instead of the SDK. */
  stats?: boolean | undefined;
}

const MAX_WARNINGS_SHOWN = 20;

interface Rendered {
  sdk: RenderedSdk;
  catalog: readonly ToolSchema[];
}

async function renderFor(flags: SdkFlags): Promise<Rendered> {
  // A JSON catalog alone needs no runtime: the generator is pure.
  if (flags.tools !== undefined && flags.config === undefined) {
    const file = await loadToolsFile(flags.tools);
    if (file.kind === 'catalog') return { sdk: renderSdk(file.catalog), catalog: file.catalog };
  }
  const opened = await openCliRuntime({
    config: flags.config,
    tools: flags.tools,
    scope: flags.scope,
    codeMode: false,
  });
  try {
    return {
      sdk: opened.runtime.sdk(opened.scope),
      catalog: opened.runtime.schemas(opened.scope),
    };
  } finally {
    await opened.close();
  }
}

const pct = (r: number): string => `${(r * 100).toFixed(1)}%`;

/** The stats as an aligned table: one row per text, tokens and characters. */
export function statsTable(s: SdkStats): string {
  const rows: [string, string, string][] = [
    ['', 'tokens', 'chars'],
    ['SDK', String(s.sdk.tokens), String(s.sdk.chars)],
    ['  prelude', String(s.prelude.tokens), String(s.prelude.chars)],
    ['  catalog', String(s.catalog.tokens), String(s.catalog.chars)],
    ['JSON wire', String(s.wire.tokens), String(s.wire.chars)],
    ['SDK / wire', pct(s.ratio.sdk.tokens), pct(s.ratio.sdk.chars)],
    ['catalog / wire', pct(s.ratio.catalog.tokens), pct(s.ratio.catalog.chars)],
  ];
  const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]?.length ?? 0)));
  const line = (r: [string, string, string]): string =>
    `${r[0].padEnd(w[0] ?? 0)}  ${r[1].padStart(w[1] ?? 0)}  ${r[2].padStart(w[2] ?? 0)}`;
  const unit = tokenCountsExact()
    ? 'tokens: o200k_base'
    : 'tokens: estimated from characters; npm install gpt-tokenizer for exact o200k_base counts';
  return [`${s.tools} tools (${unit})`, ...rows.map(line)].join('\n');
}

/** Runs the command; resolves to the exit code. */
export async function sdkCommand(flags: SdkFlags, io: Io): Promise<number> {
  const format = flags.format ?? (flags.stats === true ? 'text' : 'd.ts');
  const formats = flags.stats === true ? ['text', 'json'] : ['d.ts', 'prompt'];
  if (!formats.includes(format))
    throw new UsageError(
      `--format must be ${formats.map((f) => `"${f}"`).join(' or ')}${flags.stats === true ? ' with --stats' : ''}, got "${format}"`,
    );
  const { sdk, catalog } = await renderFor(flags);
  let text: string;
  if (flags.stats === true) {
    const stats = sdkStats(catalog, sdk);
    text = format === 'json' ? humanJson(stats) : statsTable(stats);
  } else text = format === 'prompt' ? renderSdkPrompt(sdk) : sdk.text;
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
  } else io.data(text);
  return EXIT_OK;
}
