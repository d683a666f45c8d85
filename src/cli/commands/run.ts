/** `isocode run <program.ts|->`: runs a program in code mode and prints its logs and result. */
import { basename } from 'node:path';
import { RUN_CODE, type Runtime } from '../../index.js';
import { EXIT_FAILURE, EXIT_OK, UsageError } from '../errors.js';
import { readProgram } from '../input.js';
import { openCliRuntime } from '../open.js';
import {
  failureDetails,
  failureLine,
  formatDiagnostic,
  formatLog,
  humanJson,
  printResult,
  runValue,
  type Io,
} from '../output.js';
import type { RuntimeFlags } from './shared.js';
import { limitsFromFlags } from './shared.js';

/** Flags of `isocode run`. */
export interface RunFlags extends RuntimeFlags {
  json?: boolean | undefined;
  typecheck?: boolean | undefined;
  memoryMb?: string | undefined;
  cpuMs?: string | undefined;
  wallMs?: string | undefined;
}

/** Fails with a usage error unless the scope runs programs. */
export function requireCodeScope(runtime: Runtime, scope: string): void {
  if (runtime.mode(scope) === 'native')
    throw new UsageError(
      `scope "${scope}" is in native mode: programs run only in a "code" or "both" scope`,
    );
}

/** Runs the command; resolves to the exit code. */
export async function runCommand(
  file: string,
  flags: RunFlags,
  io: Io,
  signal: AbortSignal,
): Promise<number> {
  const program = await readProgram(file);
  const limits = limitsFromFlags(flags);
  const opened = await openCliRuntime({
    config: flags.config,
    tools: flags.tools,
    scope: flags.scope,
    codeMode: true,
    typecheck: flags.typecheck === false ? false : undefined,
    limits,
    oneShot: { savings: flags.json === true },
  });
  try {
    requireCodeScope(opened.runtime, opened.scope);
    const description = `isocode run ${program.label === '<stdin>' ? '-' : basename(program.label)}`;
    const result = await opened.runtime.execute(
      { name: RUN_CODE, args: { code: program.code, description: description.slice(0, 200) } },
      { scope: opened.scope, signal },
    );
    if (flags.json) {
      io.data(humanJson(result));
      return result.ok ? EXIT_OK : EXIT_FAILURE;
    }
    if (result.ok) {
      const value = runValue(result);
      if (!value) {
        io.out(result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n'));
        return EXIT_OK;
      }
      for (const line of value.logs) io.out(formatLog(line));
      printResult(io, value.result);
      return EXIT_OK;
    }
    const details = failureDetails(result);
    for (const line of details?.logs ?? []) io.out(formatLog(line));
    const diagnostics = details?.diagnostics ?? [];
    if (diagnostics.length > 0) {
      for (const d of diagnostics) io.err(formatDiagnostic(program.label, d));
      const n = diagnostics.length;
      io.err(
        `error: ${details?.kind ?? 'typecheck'}: ${n} ${n === 1 ? 'problem' : 'problems'} in ${program.label}; nothing ran`,
      );
    } else io.err(failureLine(result));
    return EXIT_FAILURE;
  } finally {
    await opened.close();
  }
}
