/**
 * The entry of a sandbox worker process: transpiles programs and runs them in isolated-vm isolates
 * for its supervisor (the host), one run at a time, over the protocol of `protocol.ts`. Everything
 * that a hostile program can crash, pin or bloat — the transpiler's native parser, V8 itself, ICU,
 * array buffers — lives in this process; the host kills and replaces it when it misbehaves.
 */
import { PauseClock } from '../../pause-clock.js';
import './flags.js';
import { setCatastrophicErrorHandler } from '../sandbox-isolate.js';
import { SandboxPool } from '../pool.js';
import { failedRun } from '../outcome.js';
import { transpileGuarded } from '../../compile/guarded-transpile.js';
import type { TranspileResult } from '../../compile/types.js';
import type { DispatchResult } from '../types.js';
import {
  BINDINGS_CACHE,
  frameMessages,
  Outbox,
  type HostMessage,
  type WorkerMessage,
  type WorkerSettings,
} from './protocol.js';
import type { SandboxBinding } from '../types.js';

/** What this turn sends to the host (logs, calls, outcomes), written as one frame at its end. */
const outbox = new Outbox<WorkerMessage>((frame) => {
  try {
    process.send?.(frame);
  } catch {
    // the channel is closed: the supervisor is gone and so will we be
  }
});

function send(message: WorkerMessage): void {
  outbox.send(message);
}

/** Ends this process at once: isolated-vm waits for its isolates at a normal exit. */
function die(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

/** Reports, then dies once the report is written (or after a short grace). */
function fatal(reason: 'memory' | 'catastrophic', message: string): void {
  const timer = setTimeout(die, 200);
  try {
    outbox.flush();
    process.send?.({ t: 'fatal', reason, message } satisfies WorkerMessage, () => die());
  } catch {
    clearTimeout(timer);
    die();
  }
}

// The supervisor is gone: nothing here may outlive it (also while waiting for the settings).
process.on('disconnect', die);

/**
 * The settings come in the first message (`init`): the process may start before they are known. Node
 * emits IPC messages on the next tick, so more can arrive between `init` and the line that installs
 * the main handler; they wait here. (The host sends nothing else before `ready`.)
 */
const early: unknown[] = [];
let wake: (() => void) | undefined;
const takeEarly = (frame: unknown): void => {
  early.push(frame);
  wake?.();
};
process.on('message', takeEarly);
await new Promise<void>((resolve) => (wake = resolve));
// `init` is written alone (spawn.ts), never in a batch.
const first = early.shift() as HostMessage | undefined;
if (first === undefined || first.t !== 'init') die();
const settings: WorkerSettings = first.settings;

setCatastrophicErrorHandler((message) => fatal('catastrophic', message));

const pool = new SandboxPool({
  size: 1,
  maxIdle: 1,
  defaultLimits: settings.limits,
  watchdogIntervalMs: settings.watchdogIntervalMs,
  syncReplies: true,
});

/** Transpiled programs waiting for their run (the supervisor runs one right after its transpile). */
const programs = new Map<number, TranspileResult & { ok: true }>();
const MAX_PROGRAMS = 4;
/** `tools` trees by key, least recently used first. */
const trees = new Map<number, readonly SandboxBinding[]>();

function treeOf(message: HostMessage & { t: 'run' }): readonly SandboxBinding[] | undefined {
  // A tree that arrives is frozen for good: the pool then prepares it (validation, tool index)
  // once, not on every run (`prepareBindings`).
  const tree =
    message.bindings === undefined ? trees.get(message.bindingsKey) : freezeTree(message.bindings);
  if (tree === undefined) return undefined;
  trees.delete(message.bindingsKey);
  trees.set(message.bindingsKey, tree);
  for (const key of trees.keys()) if (trees.size > BINDINGS_CACHE) trees.delete(key);
  return tree;
}

function freezeTree(bindings: SandboxBinding[]): readonly SandboxBinding[] {
  if (Array.isArray(bindings))
    for (const b of bindings as unknown[])
      if (typeof b === 'object' && b !== null) {
        const path = (b as { path?: unknown }).path;
        if (typeof path === 'object' && path !== null) Object.freeze(path);
        Object.freeze(b);
      }
  return Object.freeze(bindings);
}

/** Runs in progress: their abort controllers and unanswered binding calls. */
const runs = new Map<
  number,
  {
    controller: AbortController;
    calls: Map<number, (result: DispatchResult) => void>;
    /** The run's wall clock, paused while the host says a nested call waits on a human. */
    clock: PauseClock;
    resume: (() => void) | undefined;
  }
>();

/** Transpiles `code` and answers `transpiled` under `id`; the program when it transpiled. */
function transpile(id: number, code: string): (TranspileResult & { ok: true }) | undefined {
  let result: TranspileResult;
  try {
    result = transpileGuarded(code);
  } catch {
    result = {
      ok: false,
      diagnostics: [
        {
          kind: 'syntax',
          category: 'error',
          message: 'the transpiler could not process the program',
          line: 0,
          column: 0,
        },
      ],
    };
  }
  if (!result.ok) {
    send({ t: 'transpiled', id, verdict: { ok: false, diagnostics: result.diagnostics } });
    return undefined;
  }
  send({ t: 'transpiled', id, verdict: { ok: true, notes: [] } });
  return result;
}

/** A transpiled program kept for the `run` that names it. */
function keep(id: number, program: TranspileResult & { ok: true }): void {
  programs.set(id, program);
  for (const key of programs.keys()) if (programs.size > MAX_PROGRAMS) programs.delete(key);
}

/** The program a run names: one kept by id, or its text transpiled now. */
function programOf(message: HostMessage & { t: 'run' }): {
  program: (TranspileResult & { ok: true }) | undefined;
  transpiled: boolean;
} {
  if (typeof message.program === 'object' && message.program !== null)
    return { program: transpile(message.id, String(message.program.code)), transpiled: true };
  const program = programs.get(message.program);
  programs.delete(message.program);
  return { program, transpiled: false };
}

const ABORTED_CALL: DispatchResult = {
  ok: false,
  code: 'ABORTED',
  message: 'the program has already finished',
};

/** Answers every unanswered call of a run ABORTED (its signal aborted: the run is over). */
function abortCalls(calls: Map<number, (result: DispatchResult) => void>): void {
  for (const answer of [...calls.values()]) answer(ABORTED_CALL);
}

/** Reports a run that the sandbox could not carry out (kind `internal`). */
function sendFailure(id: number, reason: string): void {
  send({ t: 'done', id, outcome: failedRun('internal', `sandbox failure: ${reason}`) });
}

async function run(message: HostMessage & { t: 'run' }): Promise<void> {
  const { id } = message;
  // The tree first: the host counts it as sent, whether or not the program runs.
  const bindings = treeOf(message);
  const { program, transpiled } = programOf(message);
  // A program sent with its run that did not transpile: `transpiled` said so, and ended the run.
  if (program === undefined && transpiled) return;
  if (program === undefined || bindings === undefined) {
    sendFailure(id, 'the worker lacks the program or its tools');
    return;
  }
  const controller = new AbortController();
  const calls = new Map<number, (result: DispatchResult) => void>();
  const clock = new PauseClock();
  runs.set(id, { controller, calls, clock, resume: undefined });
  let nextCall = 0;
  let listening: AbortSignal | undefined;
  try {
    const outcome = await pool.run({
      js: program.js,
      mapPosition: (line, column) => program.mapPosition(line, column),
      bindings,
      limits: message.limits,
      partition: message.partition,
      durable: message.durable,
      signal: controller.signal,
      clock,
      onLog: (entry) => send({ t: 'log', id, entry }),
      dispatch: (tool, args, signal, trace) =>
        new Promise<DispatchResult>((resolve) => {
          if (signal.aborted) {
            resolve(ABORTED_CALL);
            return;
          }
          // One listener for all the calls of the run (the bridge gives every call its run's
          // signal): when it aborts, every call still unanswered is answered ABORTED.
          if (listening !== signal) {
            listening = signal;
            signal.addEventListener('abort', () => abortCalls(calls), { once: true });
          }
          const call = ++nextCall;
          calls.set(call, (result) => {
            calls.delete(call);
            resolve(result);
          });
          send(
            trace === undefined
              ? { t: 'call', id, call, tool, args }
              : { t: 'call', id, call, tool, args, trace },
          );
        }),
    });
    // Logs were streamed as they came: the outcome does not carry them twice.
    send({ t: 'done', id, outcome: { ...outcome, logs: [] } });
  } catch (error) {
    sendFailure(id, error instanceof Error ? (error.message.split('\n')[0] ?? '') : 'unknown');
  } finally {
    runs.delete(id);
  }
}

function onMessage(message: HostMessage): void {
  switch (message.t) {
    case 'init':
      return; // only the first counts
    case 'transpile': {
      const program = transpile(message.id, message.code);
      if (program !== undefined) keep(message.id, program);
      return;
    }
    case 'run':
      void run(message);
      return;
    case 'reply':
      runs.get(message.id)?.calls.get(message.call)?.(message.result);
      return;
    case 'abort':
      runs.get(message.id)?.controller.abort();
      return;
    case 'pause': {
      const r = runs.get(message.id);
      if (!r) return;
      if (message.paused) r.resume ??= r.clock.pause();
      else {
        r.resume?.();
        r.resume = undefined;
      }
      return;
    }
  }
}

/**
 * The worker's own memory check: every `selfCheckMs` while the host sends work (and runs are in
 * progress), every `quietCheckMs` once it has sent nothing for `quietAfterMs`; a message brings a
 * slow check forward.
 */
let lastMessageAt = performance.now();
let selfCheck: NodeJS.Timeout | undefined;
let selfCheckDelay = 0;
let overBudget = false;

function scheduleSelfCheck(): void {
  if (overBudget) return;
  const busy = runs.size > 0 || performance.now() - lastMessageAt < settings.quietAfterMs;
  const delay = busy ? settings.selfCheckMs : settings.quietCheckMs;
  if (selfCheck !== undefined) {
    if (delay >= selfCheckDelay) return;
    clearTimeout(selfCheck);
  }
  selfCheckDelay = delay;
  selfCheck = setTimeout(() => {
    selfCheck = undefined;
    const rss = process.memoryUsage.rss();
    if (rss > settings.rssBudgetBytes) {
      overBudget = true;
      fatal('memory', `the sandbox process used ${Math.round(rss / 2 ** 20)} MiB`);
      return;
    }
    scheduleSelfCheck();
  }, delay);
}
scheduleSelfCheck();

/** Each message of a frame in order (a batch, or one message). */
function onFrame(frame: unknown): void {
  lastMessageAt = performance.now();
  scheduleSelfCheck();
  for (const message of frameMessages(frame) ?? []) onMessage(message as HostMessage);
}

process.off('message', takeEarly);
process.on('message', onFrame);
for (const frame of early.splice(0)) onFrame(frame);

pool.warmup().then(
  () => send({ t: 'ready' }),
  () => fatal('catastrophic', 'could not prepare an isolate'),
);
