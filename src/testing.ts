/**
 * `isocode/testing`: fakes for users' tests. A scripted runner stands in for the isolate runner so
 * tests can drive run_code's nested dispatch (with a real parent token, through the real executor)
 * from plain TypeScript, without isolates or a type-checker.
 */
import { IsocodeError, thrownText } from './errors.js';
import type { ParentToken } from './tools/types.js';
import type { ToolResult } from './executor/types.js';
import { findJsonProblem, type JsonValue } from './json.js';
import type { CallLine, CodeRunner, LogLine, RunCodeValue } from './run-code/types.js';
import { recordingDispatch } from './run-code/call-record.js';

/** What a script receives. */
export interface ScriptApi {
  /** The program text the model sent (the script may ignore it). */
  readonly code: string;
  readonly scope: string;
  readonly signal: AbortSignal;
  /** This run's parent token (tests use it to probe expiry). */
  readonly parentToken: ParentToken;
  /** A nested call through the executor, carrying this run's parent token. Never rejects. */
  call(name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
  /** Captures a console line. */
  log(text: string, level?: LogLine['level']): void;
}

/** A runner that runs `script` instead of a program. Its return value becomes the run's result. */
export function scriptedRunner(script: (api: ScriptApi) => unknown): CodeRunner {
  return {
    async run(program, ctx) {
      const logs: LogLine[] = [];
      const calls: CallLine[] = [];
      const api: ScriptApi = {
        code: program.code,
        scope: ctx.scope,
        signal: ctx.signal,
        parentToken: ctx.parentToken,
        call: recordingDispatch(ctx, calls),
        log(text, level = 'log') {
          logs.push({ level, text });
          ctx.emit({ type: 'log', level, text });
        },
      };
      let result: unknown;
      try {
        result = await script(api);
      } catch (err) {
        throw new IsocodeError('CODE_RUN_FAILED', thrownText(err), {
          details: { kind: ctx.signal.aborted ? 'aborted' : 'exception', logs, calls },
        });
      }
      const value = result === undefined ? null : result;
      if (findJsonProblem(value)) {
        throw new IsocodeError('CODE_RUN_FAILED', 'the script returned a value that is not JSON', {
          details: { kind: 'invalid-output', logs, calls },
        });
      }
      const out: RunCodeValue = { result: value as JsonValue, logs, calls };
      return out;
    },
  };
}
