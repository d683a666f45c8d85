/** Shared helpers of the sandbox tests. */
import { expect } from 'vitest';
import type { JsonValue } from '../../src/json.js';
import type {
  Dispatch,
  DispatchResult,
  RunOutcome,
  RunRequest,
  SandboxBinding,
  SandboxPool,
} from '../../src/sandbox/index.js';

/** Lines of the wrapper before the body (`(async function () {` and `'use strict';`). */
export const WRAPPER_LINES = 2;

/** Wraps a program body the way the compile step does. */
export function program(body: string): string {
  return `(async function () {\n'use strict';\n${body}\n})`;
}

/** Maps positions of {@link program}'s output back to the body (line 1 = first body line). */
export function bodyPosition(
  line: number,
  column: number,
): { line: number; column: number } | undefined {
  return line > WRAPPER_LINES ? { line: line - WRAPPER_LINES, column } : undefined;
}

/** One recorded dispatch. */
export interface RecordedCall {
  tool: string;
  args: JsonValue;
  signal: AbortSignal;
}

/** A scripted dispatch that records its calls. */
export function recordingDispatch(
  handler: (
    tool: string,
    args: JsonValue,
    signal: AbortSignal,
  ) => Promise<DispatchResult> | DispatchResult = (tool, args) => ({
    ok: true,
    value: { tool, args },
  }),
): {
  dispatch: Dispatch;
  calls: RecordedCall[];
} {
  const calls: RecordedCall[] = [];
  const dispatch: Dispatch = async (tool, args, signal) => {
    calls.push({ tool, args, signal });
    return handler(tool, args, signal);
  };
  return { dispatch, calls };
}

/** Bindings `tools.<name>` → tool `<name>` for each name (dotted names nest). */
export function bindingsFor(...tools: string[]): SandboxBinding[] {
  return tools.map((tool) => ({ path: tool.split('.'), tool }));
}

/** Runs a body with default helpers. */
export function runBody(
  pool: SandboxPool,
  body: string,
  extra: Partial<RunRequest> = {},
): Promise<RunOutcome> {
  return pool.run({
    js: program(body),
    bindings: extra.bindings ?? bindingsFor('echo'),
    dispatch: extra.dispatch ?? recordingDispatch().dispatch,
    mapPosition: bodyPosition,
    ...extra,
  });
}

/** Asserts success and returns the result. */
export function expectOk(outcome: RunOutcome): JsonValue {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.kind}: ${outcome.message}`);
  return outcome.result;
}

/** Asserts a failure of `kind` and returns it. */
export function expectFailure(
  outcome: RunOutcome,
  kind: string,
): Extract<RunOutcome, { ok: false }> {
  if (outcome.ok)
    throw new Error(`expected ${kind}, got success: ${JSON.stringify(outcome.result)}`);
  expect(outcome.kind, outcome.message).toBe(kind);
  return outcome;
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
