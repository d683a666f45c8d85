/**
 * Measures one lever of issue 14 that was not built: a V8 startup snapshot of the isolate bootstrap.
 * Today each run gets a fresh context in which the bootstrap script runs (`createContext` +
 * `bootstrap.run`, done ahead of the run); from an isolate created with a snapshot that already ran the
 * bootstrap, a context comes with it (`createContext` alone). Prints, per round, the median wall time
 * per context and this process's CPU per context (isolated-vm's threads included).
 *
 *   node --no-node-snapshot --import tsx benchmarks/snapshot-probe.ts [contexts per round, default 150]
 *
 * Figures: docs/decisions/026-warm-run.md ("A startup snapshot").
 */
import ivm from 'isolated-vm';
import { loadBootstrapScript } from '../src/sandbox/isolate-code.js';

const N = Number(process.argv[2] ?? '150');
const MEMORY_MB = 512; // contexts are released, but their memory returns only with the isolate's GC

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;

async function measure(
  isolate: ivm.Isolate,
  prepare: (context: ivm.Context) => Promise<void>,
): Promise<{ wall: number; cpu: number }> {
  const wall: number[] = [];
  const start = cpuMs();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const context = await isolate.createContext();
    await prepare(context);
    wall.push(performance.now() - t);
    context.release();
  }
  const cpu = (cpuMs() - start) / N;
  isolate.dispose();
  return { wall: median(wall), cpu };
}

const source = await loadBootstrapScript();
const snapshot = ivm.Isolate.createSnapshot([{ code: source.code, filename: source.filename }]);
for (let round = 0; round < 3; round++) {
  const plain = new ivm.Isolate({ memoryLimit: MEMORY_MB });
  const bootstrap = plain.compileScriptSync(source.code, { filename: source.filename });
  const today = await measure(plain, async (context) => {
    await bootstrap.run(context, { reference: true });
  });
  const snapped = await measure(new ivm.Isolate({ memoryLimit: MEMORY_MB, snapshot }), () =>
    Promise.resolve(),
  );
  console.log(
    `round ${round}: context + bootstrap ${today.wall.toFixed(3)} ms (${today.cpu.toFixed(3)} ms CPU) | ` +
      `from the snapshot ${snapped.wall.toFixed(3)} ms (${snapped.cpu.toFixed(3)} ms CPU); ` +
      `snapshot ${snapshot.copy().byteLength} bytes`,
  );
}
