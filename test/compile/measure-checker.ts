/**
 * Measures type-checking strategies for decision record 001 (not a test; run by hand):
 *   node --import tsx test/compile/measure-checker.ts
 * Raw native API (sync / async, one process), sync API in a worker thread, and createNativeChecker with
 * 1, 2 and 4 slot projects per SDK and with two processes; sequential and 20-concurrent checks, event-loop
 * lag, compiler memory. Figures vary with machine load: compare within one run.
 */

import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { API as AsyncAPI } from 'typescript-native/unstable/async';
import { API as SyncAPI } from 'typescript-native/unstable/sync';
import type { FileSystem } from 'typescript-native/unstable/fs';
import { createNativeChecker } from '../../src/compile/index.js';
import type { SdkSource, TypeChecker } from '../../src/compile/index.js';
import { childProcesses } from './helpers.js';

const TOOLS = Number(process.env.TOOLS ?? 30);
const ROUNDS = Number(process.env.ROUNDS ?? 200);

function sdkText(tools: number, tag: string): string {
  let text = `type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
declare class ToolCallError extends Error { readonly toolName: string; readonly code: string }
interface Console { log(...args: unknown[]): void }
declare var console: Console;
interface Tools {\n`;
  for (let i = 0; i < tools; i++) {
    text += `  /** Tool ${i} (${tag}). */\n  tool_${i}(input: { path: string; limit?: number; mode: "a" | "b" }): Promise<{ content: string; items: Array<{ id: number; name: string }> }>;\n`;
  }
  return `${text}}\ndeclare const tools: Tools;\n`;
}

const SDK: SdkSource = { hash: 'measure', text: sdkText(TOOLS, 'a') };
/** A realistic program with exactly one type error (line 3). */
const program = (i: number): string =>
  `const r = await tools.tool_${i % 10}({ path: "f${i}", mode: "a" });\nconst names = r.items.map((x) => x.name.toUpperCase());\nconst bad: number = names[0];\nreturn { n: names.length, c: r.content.slice(0, ${i}) };`;
const wrap = (p: string): string => `export {};\nasync function __isocode_main__() {\n${p}\n}\n`;
const OPTIONS = {
  target: 'es2022',
  lib: ['es2022'],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  moduleDetection: 'force',
};

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number): string => `${value.toFixed(2)} ms`;
const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

function rawFs(files: Map<string, string>): FileSystem {
  const inRoot = (p: string): boolean => p.startsWith('/v/');
  return {
    readFile: (f) => (inRoot(f) ? (files.get(f) ?? null) : undefined),
    fileExists: (f) => (inRoot(f) ? files.has(f) : undefined),
    directoryExists: (d) =>
      inRoot(`${d}/`) ? [...files.keys()].some((k) => k.startsWith(`${d}/`)) : undefined,
    realpath: (p) => p,
  };
}

function rawFiles(): Map<string, string> {
  return new Map([
    [
      '/v/p/tsconfig.json',
      JSON.stringify({ compilerOptions: OPTIONS, files: ['sdk.d.ts', 'main.ts'] }),
    ],
    ['/v/p/sdk.d.ts', SDK.text],
    ['/v/p/main.ts', wrap('')],
  ]);
}

/** Measures the maximum event-loop delay while `work` runs. */
async function withLag<T>(work: () => Promise<T>): Promise<{ result: T; lag: number }> {
  let lag = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 1);
    last = now;
  }, 1);
  try {
    return { result: await work(), lag };
  } finally {
    clearInterval(timer);
  }
}

async function sequential(check: (p: string) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < ROUNDS; i++) await check(program(i));
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    await check(program(i));
    times.push(performance.now() - start);
  }
  return median(times);
}

async function concurrent20(check: (p: string, i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < 15; round++) {
    const start = performance.now();
    await Promise.all(Array.from({ length: 20 }, (_, i) => check(program(i), i)));
    times.push(performance.now() - start);
  }
  return median(times);
}

async function rawSync(): Promise<void> {
  const files = rawFiles();
  const start = performance.now();
  const api = new SyncAPI({ fs: rawFs(files), cwd: '/v' });
  let snapshot = api.updateSnapshot({ openProjects: ['/v/p/tsconfig.json'] });
  const check = (text: string): number => {
    files.set('/v/p/main.ts', wrap(text));
    const next = api.updateSnapshot({ fileChanges: { changed: ['/v/p/main.ts'] } });
    snapshot.dispose();
    snapshot = next;
    const project = next.getProject('/v/p/tsconfig.json');
    if (!project) throw new Error('no project');
    return (
      project.program.getSyntacticDiagnostics('/v/p/main.ts').length +
      project.program.getSemanticDiagnostics('/v/p/main.ts').length
    );
  };
  check(program(0));
  console.log(`raw sync API: cold ${ms(performance.now() - start)}`);
  const seq = await sequential((p) => Promise.resolve(check(p)));
  console.log(
    `raw sync API: sequential ${ms(seq)} per check (the event loop is blocked for all of it)`,
  );
  snapshot.dispose();
  api.close();
}

/** The two facts behind the session design: undisposed snapshots leak; an unnamed change is not seen. */
async function facts(): Promise<void> {
  const files = rawFiles();
  const api = new AsyncAPI({ fs: rawFs(files), cwd: '/v' });
  await (await api.updateSnapshot({ openProjects: ['/v/p/tsconfig.json'] })).dispose();
  const pid = (api as unknown as { client: { process: { pid: number } } }).client.process.pid;
  const check = async (i: number, dispose: boolean): Promise<void> => {
    files.set('/v/p/main.ts', wrap(program(i)));
    const snapshot = await api.updateSnapshot({ fileChanges: { changed: ['/v/p/main.ts'] } });
    await snapshot.getProject('/v/p/tsconfig.json')?.program.getSemanticDiagnostics('/v/p/main.ts');
    if (dispose) await snapshot.dispose();
  };
  for (let i = 0; i < 200; i++) await check(i, true);
  for (const dispose of [true, false]) {
    const before = rssMb(pid);
    for (let i = 0; i < 500; i++) await check(i, dispose);
    const growth = rssMb(pid) - before;
    console.log(
      `facts: 500 checks ${dispose ? 'disposing' : 'NOT disposing'} snapshots: compiler RSS +${growth.toFixed(1)} MB`,
    );
  }
  // The last checked program had one error; the new one has none.
  files.set('/v/p/main.ts', wrap('return 1;'));
  const unnamed = await api.updateSnapshot();
  const stale = await unnamed
    .getProject('/v/p/tsconfig.json')
    ?.program.getSemanticDiagnostics('/v/p/main.ts');
  const named = await api.updateSnapshot({ fileChanges: { changed: ['/v/p/main.ts'] } });
  const fresh = await named
    .getProject('/v/p/tsconfig.json')
    ?.program.getSemanticDiagnostics('/v/p/main.ts');
  console.log(
    `facts: new program without errors; file not named: ${stale?.length} diagnostic(s) (stale), named: ${fresh?.length}`,
  );
  await api.close();
}

async function rawAsync(): Promise<void> {
  const files = rawFiles();
  const start = performance.now();
  const api = new AsyncAPI({ fs: rawFs(files), cwd: '/v' });
  await (await api.updateSnapshot({ openProjects: ['/v/p/tsconfig.json'] })).dispose();
  const check = async (text: string): Promise<number> => {
    files.set('/v/p/main.ts', wrap(text));
    const snapshot = await api.updateSnapshot({ fileChanges: { changed: ['/v/p/main.ts'] } });
    const project = snapshot.getProject('/v/p/tsconfig.json');
    if (!project) throw new Error('no project');
    const [a, b] = await Promise.all([
      project.program.getSyntacticDiagnostics('/v/p/main.ts'),
      project.program.getSemanticDiagnostics('/v/p/main.ts'),
    ]);
    await snapshot.dispose();
    return a.length + b.length;
  };
  await check(program(0));
  console.log(`raw async API: cold ${ms(performance.now() - start)}`);
  console.log(`raw async API: sequential ${ms(await sequential(check))} per check`);
  await api.close();
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { API } = await import('typescript-native/unstable/sync');
  const files = new Map(workerData.files);
  const inRoot = (p) => p.startsWith('/v/');
  const fs = {
    readFile: (f) => (inRoot(f) ? (files.get(f) ?? null) : undefined),
    fileExists: (f) => (inRoot(f) ? files.has(f) : undefined),
    directoryExists: (d) => (inRoot(d + '/') ? [...files.keys()].some((k) => k.startsWith(d + '/')) : undefined),
    realpath: (p) => p,
  };
  const api = new API({ fs, cwd: '/v' });
  let snapshot = api.updateSnapshot({ openProjects: ['/v/p/tsconfig.json'] });
  parentPort.on('message', ({ id, text }) => {
    files.set('/v/p/main.ts', text);
    const next = api.updateSnapshot({ fileChanges: { changed: ['/v/p/main.ts'] } });
    snapshot.dispose();
    snapshot = next;
    const p = next.getProject('/v/p/tsconfig.json');
    const n = p.program.getSyntacticDiagnostics('/v/p/main.ts').length + p.program.getSemanticDiagnostics('/v/p/main.ts').length;
    parentPort.postMessage({ id, n });
  });
  parentPort.postMessage({ id: -1 });
})();
`;

async function syncInWorker(): Promise<void> {
  const start = performance.now();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { files: [...rawFiles()] } });
  const pending = new Map<number, () => void>();
  let ready: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  worker.on('message', (m: { id: number }) => {
    if (m.id === -1) ready();
    pending.get(m.id)?.();
    pending.delete(m.id);
  });
  let next = 0;
  const check = (text: string): Promise<void> =>
    new Promise<void>((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      worker.postMessage({ id, text: wrap(text) });
    });
  await readyPromise;
  await check(program(0));
  console.log(`sync API in a worker thread: cold ${ms(performance.now() - start)}`);
  console.log(`sync API in a worker thread: sequential ${ms(await sequential(check))} per check`);
  console.log(
    `sync API in a worker thread: 20 concurrent ${ms(await concurrent20(check))} in total`,
  );
  await worker.terminate();
}

async function checker(slotsPerSdk: number): Promise<void> {
  const c = createNativeChecker({ slotsPerSdk });
  const start = performance.now();
  await c.warmup(SDK);
  const cold = performance.now() - start;
  const check = (p: string): Promise<unknown> => c.check(p, SDK);
  const seq = await sequential(check);
  const conc = await concurrent20(check);
  const { lag } = await withLag(() => concurrent20(check));
  const pid = childProcesses()[0] ?? 0;
  const before = rssMb(pid);
  for (let i = 0; i < 1000; i++) await check(program(i));
  console.log(
    `createNativeChecker slotsPerSdk=${slotsPerSdk}: warmup ${ms(cold)}, sequential ${ms(seq)}, 20 concurrent ${ms(conc)} in total, max event-loop lag ${ms(lag)}, compiler RSS ${before.toFixed(1)} -> ${rssMb(pid).toFixed(1)} MB after 1000 more checks`,
  );
  if (slotsPerSdk === 2) await sdkFigures(c, pid);
  await c.close();
}

async function sdkFigures(c: TypeChecker, pid: number): Promise<void> {
  const sdks = Array.from({ length: 7 }, (_, i) => ({
    hash: `extra-${i}`,
    text: sdkText(TOOLS, `x${i}`),
  }));
  let start = performance.now();
  await c.check(program(1), sdks[0] ?? SDK);
  console.log(
    `  a new SDK (${SDK.text.length} chars): first check ${ms(performance.now() - start)}`,
  );
  for (const sdk of sdks.slice(1)) await c.check(program(1), sdk);
  const all = [SDK, ...sdks];
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    start = performance.now();
    await c.check(program(i), all[i % all.length] ?? SDK);
    times.push(performance.now() - start);
  }
  console.log(
    `  8 SDKs cached, alternating checks: ${ms(median(times))}; compiler RSS ${rssMb(pid).toFixed(1)} MB`,
  );
}

async function twoProcesses(): Promise<void> {
  const pool = [createNativeChecker({ slotsPerSdk: 1 }), createNativeChecker({ slotsPerSdk: 1 })];
  await Promise.all(pool.map((c) => c.warmup(SDK)));
  for (const c of pool) await sequential((p) => c.check(p, SDK));
  const conc = await concurrent20(
    (p, i) => (pool[i % 2] ?? pool[0])?.check(p, SDK) ?? Promise.resolve(),
  );
  console.log(`two processes (1 slot each): 20 concurrent ${ms(conc)} in total`);
  await Promise.all(pool.map((c) => c.close()));
}

console.log(`SDK: ${TOOLS} tools, ${SDK.text.length} chars; ${ROUNDS} rounds; medians`);
await facts();
await rawSync();
await rawAsync();
await syncInWorker();
for (const slots of [1, 2, 4]) await checker(slots);
await twoProcesses();
