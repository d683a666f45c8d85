/** `isocode check <program.ts|->`: type-checks a program against the scope's SDK; runs nothing. */
import { EXIT_FAILURE, EXIT_OK } from '../errors.js';
import { readProgram } from '../input.js';
import { openCliRuntime } from '../open.js';
import { formatDiagnostic, humanJson, type Io } from '../output.js';
import { requireCodeScope } from './run.js';
import type { RuntimeFlags } from './shared.js';

/** Flags of `isocode check`. */
export interface CheckFlags extends RuntimeFlags {
  json?: boolean | undefined;
}

/** Runs the command; resolves to the exit code (1 when there are diagnostics). */
export async function checkCommand(
  file: string,
  flags: CheckFlags,
  io: Io,
  signal: AbortSignal,
): Promise<number> {
  const program = await readProgram(file);
  const opened = await openCliRuntime({
    config: flags.config,
    tools: flags.tools,
    scope: flags.scope,
    codeMode: true,
    typecheck: true,
    oneShot: { savings: false },
  });
  try {
    requireCodeScope(opened.runtime, opened.scope);
    const diagnostics = await opened.runtime.check(program.code, opened.scope, signal);
    if (flags.json) io.data(humanJson(diagnostics));
    else {
      for (const d of diagnostics) io.out(formatDiagnostic(program.label, d));
      const n = diagnostics.length;
      io.err(
        n === 0
          ? `${program.label}: no problems`
          : `${program.label}: ${n} ${n === 1 ? 'problem' : 'problems'}`,
      );
    }
    return diagnostics.length > 0 ? EXIT_FAILURE : EXIT_OK;
  } finally {
    await opened.close();
  }
}
