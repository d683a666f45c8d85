/**
 * Scenario 2c, the one-shot CLI: whole processes of the installed bin (`bin/isocode.js`, which
 * loads the built `dist/`), timed from spawn to exit, round-robin with `node -e 0` as the floor
 * (what any Node command costs on this machine at this moment). Medians, and each command's
 * ratio to the floor measured in the same rounds.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ratio, summarize } from '../lib/stats.js';
import type { Scenario, ScenarioOutput } from '../lib/types.js';
import { NODE_FLOOR_ARGS, timeSpawnToExit } from './child.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/isocode.js', import.meta.url));
const HELLO = 'examples/hello.ts';

interface Command {
  id: string;
  label: string;
  args: readonly string[];
}

const COMMANDS: readonly Command[] = [
  { id: 'floor', label: 'node -e 0 (the floor)', args: NODE_FLOOR_ARGS },
  { id: 'help', label: 'isocode --help', args: [BIN, '--help'] },
  { id: 'run', label: `isocode run ${HELLO}`, args: [BIN, 'run', HELLO] },
  {
    id: 'runNocheck',
    label: `isocode run --no-typecheck ${HELLO}`,
    args: [BIN, 'run', '--no-typecheck', HELLO],
  },
  { id: 'check', label: `isocode check ${HELLO}`, args: [BIN, 'check', HELLO] },
];

export const cliScenario: Scenario = {
  id: 'cli',
  title: '2c. One-shot CLI (whole processes of the installed bin)',
  async run(ctx): Promise<ScenarioOutput> {
    const out: ScenarioOutput = { tables: [], metrics: {}, notes: [], failures: [] };
    if (!existsSync(fileURLToPath(new URL('../../dist/cli.js', import.meta.url)))) {
      out.failures.push('dist/cli.js is missing: build first (`npx tsup`, run by `npm install`)');
      return out;
    }
    const rounds = Math.max(3, ctx.budget.coldSamples * 3);
    const samples = new Map<string, number[]>(COMMANDS.map((c) => [c.id, []]));
    ctx.progress.start('one-shot CLI', rounds * COMMANDS.length);
    for (let round = 0; round < rounds; round++) {
      for (const command of COMMANDS) {
        try {
          samples.get(command.id)?.push(await timeSpawnToExit(command.args, ROOT));
        } catch (error) {
          out.failures.push(`${command.label}: ${(error as Error).message}`);
          ctx.progress.done();
          return out;
        }
        ctx.progress.tick();
      }
    }
    ctx.progress.done();
    const median = (id: string): number => summarize(samples.get(id) ?? []).median;
    const floor = median('floor');
    out.tables.push({
      title: `One-shot CLI, spawn to exit (median of ${rounds} processes each, round-robin, ms)`,
      columns: ['command', 'median', 'p90', '÷ node -e 0', 'over the floor'],
      rows: COMMANDS.map((c) => {
        const s = summarize(samples.get(c.id) ?? []);
        return [c.label, s.median, s.p90, ratio(s.median, floor), s.median - floor];
      }),
    });
    for (const c of COMMANDS) {
      out.metrics[`cli.${c.id}Ms`] = median(c.id);
      const vsFloor = ratio(median(c.id), floor);
      if (c.id !== 'floor' && Number.isFinite(vsFloor)) out.metrics[`cli.${c.id}VsFloor`] = vsFloor;
    }
    out.notes.push(
      'Each sample is a new process of the installed bin on the built package (`node bin/isocode.js …`, the built-in demo tools). `run` forks its sandbox worker before it loads the library (the runtime adopts it) and, with typecheck on, starts the native checker process while it opens the runtime. The floor is `node -e 0` in the same rounds, so the ratio holds when the machine is loaded.',
    );
    return out;
  },
};
