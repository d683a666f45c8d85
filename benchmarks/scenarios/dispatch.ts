/**
 * Scenario 1: nested dispatch overhead. N `kv.get` calls made (a) directly through the
 * engine's dispatch path (isocode: `runtime.execute` on a native scope — the executor floor),
 * (b) sequentially from one program, (c) from one program in `Promise.all` batches of 10.
 * Per-call cost of (b) and (c) is marginal: (program with N calls − program with 0 calls) / N,
 * so the fixed cost of a run does not count as dispatch.
 */
import { measureInterleaved } from '../lib/harness.js';
import type { Subject } from '../lib/harness.js';
import { summarize } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';
import type { Cell, Scenario, ScenarioOutput, Table } from '../lib/types.js';
import { buildCatalog } from './catalog.js';
import { noteErrors, programSubject, withEngines } from './common.js';
import { batchedProgram, sequentialProgram } from './programs.js';

const BATCH = 10;

export const dispatchScenario: Scenario = {
  id: 'dispatch',
  title: '1. Nested dispatch overhead',
  async run(ctx): Promise<ScenarioOutput> {
    const calls = ctx.budget.dispatchCalls;
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    // Typecheck is a fixed cost per run and cancels out of the marginal figure.
    const factories = ctx.engines.filter((f) => f.name !== 'isocode');
    out.notes.push(
      `${calls} kv.get calls per operation, batches of ${BATCH}; per-call figures are marginal (N calls − 0 calls) / N. isocode measured with typecheck off. "± noise" is (p90 − median) of the 0-call run ÷ N: a marginal figure smaller than it is shown as "unresolved" (the worker-thread baseline's worker start-up swamps its per-call cost).`,
    );
    await withEngines(
      factories,
      () => buildCatalog(50),
      out.failures,
      async (engines) => {
        const subjects: Subject[] = [];
        for (const { factory, engine } of engines) {
          const direct = engine.callDirect?.bind(engine);
          if (direct !== undefined) {
            subjects.push({
              id: `${factory.name}:direct`,
              run: async () => {
                for (let i = 0; i < calls; i++) {
                  const outcome = await direct('kv.get', { key: `k${i % 8}` });
                  if (!outcome.ok) throw new Error(outcome.error ?? 'direct call failed');
                }
              },
            });
          }
          const expect = (n: number) => (result: unknown) => result === n;
          subjects.push(
            programSubject(`${factory.name}:empty`, engine, sequentialProgram(0), expect(0)),
          );
          subjects.push(
            programSubject(`${factory.name}:seq`, engine, sequentialProgram(calls), expect(calls)),
          );
          subjects.push(
            programSubject(
              `${factory.name}:batch`,
              engine,
              batchedProgram(calls, BATCH),
              expect(calls),
            ),
          );
        }
        const iterations = ctx.budget.dispatchIterations;
        const warmup = ctx.budget.warmup;
        ctx.progress.start('dispatch', subjects.length * (iterations + warmup));
        const samples = await measureInterleaved(subjects, {
          warmup,
          iterations,
          blockSize: 5,
          progress: ctx.progress,
        });
        ctx.progress.done();
        const table: Table = {
          title: `Nested dispatch, ${calls} calls (µs per call)`,
          columns: [
            'engine',
            'direct',
            'sequential',
            'Promise.all',
            'seq ÷ direct',
            'batch ÷ direct',
            '± noise µs/call',
            'run, 0 calls ms',
            `run, ${calls} seq ms`,
          ],
          rows: [],
        };
        for (const { factory } of engines) {
          const name = factory.name;
          const stats = (kind: string): Summary => {
            const s = samples.get(`${name}:${kind}`);
            noteErrors(out.failures, `${name}:${kind}`, s);
            return summarize(s?.samples ?? []);
          };
          const emptyStats = stats('empty');
          const empty = emptyStats.median;
          const seqTotal = stats('seq').median;
          const direct = (stats('direct').median / calls) * 1000;
          const seq = ((seqTotal - empty) / calls) * 1000;
          const batch = ((stats('batch').median - empty) / calls) * 1000;
          // The resolution of a marginal figure: the fixed cost's spread, spread over N calls.
          const noise = ((emptyStats.p90 - emptyStats.median) / calls) * 1000;
          const shown = (value: number): Cell => (value < noise ? 'unresolved' : value);
          Object.assign(out.metrics, {
            [`dispatch.${name}.directUs`]: direct,
            [`dispatch.${name}.seqMarginalUs`]: seq,
            [`dispatch.${name}.batchMarginalUs`]: batch,
            [`dispatch.${name}.noiseUs`]: noise,
          });
          // A ratio only for a figure the run resolved: under the noise, its target is "not measured".
          if (seq >= noise) out.metrics[`dispatch.${name}.seqRatio`] = seq / direct;
          if (batch >= noise) out.metrics[`dispatch.${name}.batchRatio`] = batch / direct;
          table.rows.push([
            name,
            direct,
            shown(seq),
            shown(batch),
            seq < noise ? null : seq / direct,
            batch < noise ? null : batch / direct,
            noise,
            empty,
            seqTotal,
          ]);
        }
        out.tables.push(table);
      },
    );
    return out;
  },
};
