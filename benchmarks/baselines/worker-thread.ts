/**
 * Baseline (a): the seed harness's approach. Types are stripped with oxc-transform on the
 * host, and every run gets a FRESH `worker_threads` Worker; each tool call is a
 * postMessage round trip to the parent, which runs the tool and posts the value back.
 *
 * Kept faithful, not slow: the guest is an inline eval script (no module loading), the
 * worker gets `execArgv: []` (it would otherwise inherit `--import tsx` from the bench
 * process, which a production harness does not have), and termination of a finished
 * worker is not on the measured path (it still costs CPU, which throughput shows).
 */
import { Worker } from 'node:worker_threads';
import type { BenchCatalog, BenchTool, Engine, RunOutcome } from '../engines/types.js';
import {
  MAKE_CONSOLE_JS,
  MAKE_TOOLS_JS,
  PROGRAM_FUNCTION,
  compileProgram,
  toolTable,
} from './program-js.js';

/** Options of the worker-thread baseline. */
export interface WorkerThreadOptions {
  /** Per-run wall-clock limit. @default 30000 */
  timeoutMs?: number;
  /** The worker's old-generation heap cap, as a sandboxing harness sets one. @default 128 */
  maxOldGenerationSizeMb?: number;
}

const GUEST_JS = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
${MAKE_TOOLS_JS}
${MAKE_CONSOLE_JS}
let nextId = 0;
const pending = new Map();
parentPort.on('message', (message) => {
  const waiter = pending.get(message.id);
  if (waiter === undefined) return;
  pending.delete(message.id);
  if (message.ok) waiter.resolve(message.value);
  else waiter.reject(new Error(message.error));
});
const call = (name, args) =>
  new Promise((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { resolve, reject });
    parentPort.postMessage({ type: 'call', id, name, args });
  });
const logs = [];
const program = new Function('tools', 'console', workerData.js + '\\nreturn ${PROGRAM_FUNCTION}(tools, console);');
Promise.resolve()
  .then(() => program(__makeTools(workerData.names, call), __makeConsole(logs)))
  .then(
    (result) => parentPort.postMessage({ type: 'done', ok: true, result, logs }),
    (error) => parentPort.postMessage({ type: 'done', ok: false, error: String(error && error.message ? error.message : error) }),
  );
`;

type GuestMessage =
  | { type: 'call'; id: number; name: string; args: unknown }
  | { type: 'done'; ok: true; result: unknown }
  | { type: 'done'; ok: false; error: string };

function parseGuestMessage(message: unknown): GuestMessage | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if (m.type === 'call' && typeof m.id === 'number' && typeof m.name === 'string') {
    return { type: 'call', id: m.id, name: m.name, args: m.args };
  }
  if (m.type === 'done' && m.ok === true) return { type: 'done', ok: true, result: m.result };
  if (m.type === 'done') return { type: 'done', ok: false, error: String(m.error) };
  return undefined;
}

/** Creates the worker-thread baseline engine. */
export function createWorkerThreadEngine(options: WorkerThreadOptions = {}): Engine {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let tools = new Map<string, BenchTool>();
  let names: string[] = [];
  const terminating = new Set<Promise<number>>();

  const retire = (worker: Worker): void => {
    const done = worker.terminate();
    terminating.add(done);
    done.then(
      () => terminating.delete(done),
      () => terminating.delete(done),
    );
  };

  const answer = (worker: Worker, id: number, name: string, args: unknown): void => {
    const tool = tools.get(name);
    if (tool === undefined) {
      worker.postMessage({ id, ok: false, error: `unknown tool ${name}` });
      return;
    }
    Promise.resolve()
      .then(() =>
        tool.execute(
          typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
        ),
      )
      .then(
        (value) => worker.postMessage({ id, ok: true, value }),
        (error: unknown) => worker.postMessage({ id, ok: false, error: String(error) }),
      );
  };

  return {
    name: 'worker-thread',
    setup(catalog: BenchCatalog) {
      tools = toolTable(catalog.tools);
      names = catalog.tools.map((tool) => tool.name);
      return Promise.resolve();
    },
    runProgram(programTs: string): Promise<RunOutcome> {
      let js: string;
      try {
        js = compileProgram(programTs);
      } catch (error) {
        return Promise.resolve({ ok: false, error: String(error) });
      }
      return new Promise<RunOutcome>((resolve) => {
        let settled = false;
        const worker = new Worker(GUEST_JS, {
          eval: true,
          workerData: { js, names },
          execArgv: [],
          resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb ?? 128 },
        });
        const finish = (outcome: RunOutcome): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          retire(worker);
          resolve(outcome);
        };
        const timer = setTimeout(
          () => finish({ ok: false, error: `timed out after ${timeoutMs} ms` }),
          timeoutMs,
        );
        worker.on('message', (raw: unknown) => {
          const message = parseGuestMessage(raw);
          if (message === undefined) finish({ ok: false, error: 'malformed message from worker' });
          else if (message.type === 'call') answer(worker, message.id, message.name, message.args);
          else if (message.ok) finish({ ok: true, result: message.result });
          else finish({ ok: false, error: message.error });
        });
        worker.on('error', (error) => finish({ ok: false, error: String(error) }));
        worker.on('exit', (code) =>
          finish({ ok: false, error: `worker exited with code ${code}` }),
        );
      });
    },
    async callDirect(name, args) {
      const tool = tools.get(name);
      if (tool === undefined) return { ok: false, error: `unknown tool ${name}` };
      return { ok: true, result: await Promise.resolve(tool.execute(args)) };
    },
    async close() {
      await Promise.allSettled([...terminating]);
    },
  };
}
