/** The run_code tool: registered by the runtime under the reserved name; it goes through the executor like any call. */
import { durationOptionOr } from '../options.js';
import { z } from 'zod';
import type { Executor } from '../executor/executor.js';
import { RUN_CODE } from '../tools/names.js';
import { resolveTransport, type ResolvedTool } from '../tools/resolve-tool.js';
import type { TransportContext } from '../tools/types.js';
import { durableSeamOf } from './durable-seam.js';
import { renderRunValue } from './render.js';
import type { CodeRunner, RunCodeValue, RunProgressEvent, ScopeSdk } from './types.js';

/** Options of the run_code tool. */
export interface RunCodeToolOptions {
  runner: CodeRunner;
  executor: Executor;
  /** The largest program accepted, in characters. @default 100000 */
  maxCodeChars?: number | undefined;
  /** Time limit of a whole run_code call, the executor's TOOL_TIMEOUT backstop. @default 120000 */
  timeoutMs?: number | undefined;
  /** The SDK of a scope. */
  sdkFor: (scope: string) => ScopeSdk;
  /** Receives progress events of every run, tagged with the run_code call id. */
  onProgress?: ((callId: string, event: RunProgressEvent) => void) | undefined;
  /** Whether anyone receives them now (`onProgress` may drop them). @default true when `onProgress` is set */
  progressListened?: (() => boolean) | undefined;
}

const DESCRIPTION =
  "Runs a TypeScript program against the typed SDK of this scope's tools. The program is the body of an async function: use await, call tools through the `tools` object, and `return` a JSON value.";

/** Builds the run_code tool: the transport, whose body receives its parent token in its context. */
export function createRunCodeTool(options: RunCodeToolOptions): ResolvedTool<TransportContext> {
  const maxCode = options.maxCodeChars ?? 100_000;
  const input = z.object({
    code: z
      .string()
      .min(1, 'code must not be empty')
      .max(maxCode, `code must be at most ${maxCode} characters`),
    description: z
      .string()
      .max(200, 'description must be at most 200 characters')
      .refine(
        (s) => s.trim().length > 0,
        'description must not be blank: give the program a short title',
      ),
  });
  return resolveTransport({
    name: RUN_CODE,
    description: DESCRIPTION,
    input,
    timeoutMs: durationOptionOr('codeMode.timeoutMs', options.timeoutMs, 120_000, 1),
    isConcurrencySafe: false,
    execute: (args: z.infer<typeof input>, ctx: TransportContext): Promise<RunCodeValue> => {
      const { parentToken, scope, callId, signal } = ctx;
      const seam = durableSeamOf(callId);
      const execute = (
        name: string,
        callArgs: unknown,
        callSignal: AbortSignal | undefined,
        id?: string,
      ) =>
        options.executor.execute(
          { name, args: callArgs, id },
          { scope, parent: parentToken, signal: callSignal },
        );
      return options.runner.run(args, {
        scope,
        callId,
        signal,
        parentToken,
        durable: seam?.tape,
        reserved: seam?.slot,
        dispatch: (name, callArgs, callSignal, trace, watch) =>
          seam === undefined || trace === undefined
            ? execute(name, callArgs, callSignal)
            : seam.call(name, callArgs, trace, (id) => {
                watch?.id(id);
                return execute(name, callArgs, callSignal, id);
              }),
        emit: (event) => options.onProgress?.(callId, event),
        listening: () => options.onProgress !== undefined && (options.progressListened?.() ?? true),
        sdk: () => options.sdkFor(scope),
        clock: options.executor.clockOf(parentToken),
      });
    },
    render: (value: RunCodeValue) => renderRunValue(value),
  });
}
