/**
 * Results that survive a stopped run: each scenario's result is written to its own JSON file as
 * soon as it finishes (`<outDir>/scenarios/<base>-<id>.json`), and the whole report is assembled
 * from the current run's scenarios plus, for those this run did not measure, the files an earlier
 * run left behind, marked stale with the run and commit they come from.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SCENARIO_IDS } from './types.js';
import type { BenchReport, ScenarioId, ScenarioResult } from './types.js';

/** One stored scenario result with the run it belongs to. */
export interface StoredScenario {
  schema: 'isocode-bench-scenario/1';
  /** When the run that measured it started (ISO time): identifies the run. */
  runStartedAt: string;
  commit: string | null;
  mode: BenchReport['mode'];
  finishedAt: string;
  scenario: ScenarioResult;
}

/** The path of a scenario's result file. */
export function scenarioPath(outDir: string, base: string, id: ScenarioId): string {
  return join(outDir, 'scenarios', `${base}-${id}.json`);
}

/** Writes one finished scenario of the current run; resolves to the path written. */
export async function saveScenario(
  outDir: string,
  base: string,
  run: { startedAt: string; commit: string | null; mode: BenchReport['mode'] },
  scenario: ScenarioResult,
): Promise<string> {
  const file = scenarioPath(outDir, base, scenario.id);
  await mkdir(join(outDir, 'scenarios'), { recursive: true });
  const stored: StoredScenario = {
    schema: 'isocode-bench-scenario/1',
    runStartedAt: run.startedAt,
    commit: run.commit,
    mode: run.mode,
    finishedAt: new Date().toISOString(),
    scenario: { ...scenario, stale: undefined },
  };
  await writeFile(file, `${JSON.stringify(stored, null, 2)}\n`);
  return file;
}

function isStored(value: unknown): value is StoredScenario {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<StoredScenario>;
  return (
    v.schema === 'isocode-bench-scenario/1' &&
    typeof v.runStartedAt === 'string' &&
    typeof v.scenario === 'object' &&
    v.scenario !== null &&
    (SCENARIO_IDS as readonly string[]).includes(v.scenario.id)
  );
}

/** Reads a stored scenario; `undefined` when there is none or it cannot be read. */
export async function loadScenario(
  outDir: string,
  base: string,
  id: ScenarioId,
): Promise<StoredScenario | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(scenarioPath(outDir, base, id), 'utf8'));
    return isStored(parsed) && parsed.scenario.id === id ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every scenario in run order: the current run's own, else an earlier run's stored result marked
 * stale (with its run's start time and commit), else nothing.
 */
export async function mergeScenarios(
  outDir: string,
  base: string,
  current: readonly ScenarioResult[],
  run: { startedAt: string; commit: string | null },
): Promise<ScenarioResult[]> {
  const merged: ScenarioResult[] = [];
  for (const id of SCENARIO_IDS) {
    const own = current.find((s) => s.id === id && s.status !== 'skipped');
    if (own !== undefined) {
      merged.push(own);
      continue;
    }
    const stored = await loadScenario(outDir, base, id);
    if (stored !== undefined && stored.runStartedAt !== run.startedAt) {
      merged.push({
        ...stored.scenario,
        stale: {
          runStartedAt: stored.runStartedAt,
          commit: stored.commit,
          sameCommit: stored.commit !== null && stored.commit === run.commit,
        },
      });
      continue;
    }
    const skipped = current.find((s) => s.id === id);
    if (skipped !== undefined) merged.push(skipped);
  }
  return merged;
}

/** "stale: from the run of <time> at <commit>" for a scenario carried over from an earlier run. */
export function staleNote(scenario: ScenarioResult): string | undefined {
  const stale = scenario.stale;
  if (stale === undefined) return undefined;
  const commit =
    stale.commit === null
      ? 'an unknown commit'
      : `commit ${stale.commit}${stale.sameCommit ? ' (this commit)' : ' (an earlier commit)'}`;
  return `STALE: not measured in this run; carried over from the run started ${stale.runStartedAt} at ${commit}.`;
}
