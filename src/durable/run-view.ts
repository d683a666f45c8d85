/**
 * What the API shows of a run: one run in full (`GET /v1/runs/:id`) and the summaries of a scope's
 * runs (`GET /v1/runs`). Both are read from the store, so any replica answers the same.
 */
import type { JsonValue } from '../json.js';
import type { Readback, RunFilter, RunRecord, RunStatus, RunStore } from './store.js';

/** A nested call of a run, once, from its journal record. */
export interface CallView {
  name: string;
  ok: boolean | undefined;
  code: string | undefined;
  durationMs: number | undefined;
  /** Its body ran in an earlier life of the run: the latest life answered it from the journal. */
  replayed: boolean;
}

/** A run in a list: no program, calls or result, only what a row needs. */
export interface RunSummary extends Readback {
  id: string;
  scope: string;
  description: string | undefined;
  status: RunStatus;
  /** Nested calls whose body has started so far (a call waiting for a human is not counted yet). */
  callCount: number;
  /** Approvals still pending. */
  pendingApprovals: number;
  /** The error (`{ code, message, ... }`) of a failed, cancelled or interrupted run. */
  error: JsonValue | undefined;
  createdAt: number;
  startedAt: number | undefined;
  updatedAt: number;
  finishedAt: number | undefined;
}

/** A run as the API shows it. */
export interface RunView extends RunSummary {
  /** The program's TypeScript source. */
  program: string;
  /** The nested calls that have ended so far, each once (however many lives replayed it), in the order they ended. */
  calls: CallView[];
  /** The run_code ToolResult, once settled. */
  result: JsonValue | undefined;
}

/** The most runs one list answers. */
export const MAX_LISTED_RUNS = 100;

function summary(record: RunRecord, callCount: number, pendingApprovals: number): RunSummary {
  return {
    id: record.id,
    scope: record.scope,
    description: record.description,
    status: record.status,
    callCount,
    pendingApprovals,
    error: record.error,
    createdAt: record.createdAt,
    startedAt: record.startedAt,
    updatedAt: record.updatedAt,
    finishedAt: record.finishedAt,
    ...(record.damaged === undefined ? {} : { damaged: record.damaged }),
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The full view of one run. */
export async function runView(store: RunStore, record: RunRecord): Promise<RunView> {
  const [journal, approvals] = await Promise.all([
    store.listCalls(record.id),
    store.listApprovals({ runId: record.id, status: ['pending'] }),
  ]);
  const calls = journal
    .filter((c) => c.status === 'ok' || c.status === 'error')
    .sort((a, b) => (a.finishSeq ?? 0) - (b.finishSeq ?? 0))
    .map((c): CallView => {
      const error = (c.result as { error?: { code?: unknown } } | undefined)?.error;
      return {
        name: c.name,
        ok: c.status === 'ok',
        code: c.status === 'error' ? str(error?.code) : undefined,
        durationMs: c.finishedAt === undefined ? undefined : c.finishedAt - c.startedAt,
        replayed: c.epoch > 0 && c.epoch < record.epoch,
      };
    });
  const counted = journal.filter((c) => c.status !== 'pending').length;
  return {
    ...summary(record, counted, approvals.length),
    program: record.program,
    calls,
    result: record.result,
  };
}

/** A scope's runs, newest first (at most {@link MAX_LISTED_RUNS}). */
export async function listRunSummaries(
  store: RunStore,
  filter: {
    scope: string;
    status?: readonly RunStatus[] | undefined;
    limit?: number | undefined;
    /** Only runs created before this time (paging). */
    before?: number | undefined;
  },
): Promise<RunSummary[]> {
  const query: RunFilter = {
    scope: filter.scope,
    status: filter.status,
    createdBefore: filter.before,
    limit: Math.min(filter.limit ?? MAX_LISTED_RUNS, MAX_LISTED_RUNS),
  };
  const records = await store.listRuns(query);
  if (records.length === 0) return [];
  const ids = records.map((r) => r.id);
  const [counts, pending] = await Promise.all([
    store.countCalls(ids),
    store.listApprovals({ scope: filter.scope, status: ['pending'], limit: 1000 }),
  ]);
  const waiting = new Map<string, number>();
  for (const a of pending) waiting.set(a.runId, (waiting.get(a.runId) ?? 0) + 1);
  return records.map((r) => summary(r, counts.get(r.id) ?? 0, waiting.get(r.id) ?? 0));
}
