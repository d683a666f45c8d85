/**
 * Runs one life of a durable run: opens its journal, attaches it to the run_code call the run
 * executes as, runs the program and says how the run ended ({@link ReplayVerdict}). The first
 * life and every replay after a crash go through here; the journal decides which calls run.
 */
import type { Runtime } from '../runtime-types.js';
import { attachDurableSeam } from '../run-code/durable-seam.js';
import { RUN_CODE } from '../tools/names.js';
import type { JournalOptions, JournalStore, ReplayVerdict } from './journal-types.js';
import { durableCallsMiddleware, openJournal } from './journal-open.js';

/** The run to execute. */
export interface DurableRunSpec {
  id: string;
  scope: string;
  /** The program's TypeScript source. */
  program: string;
  /** @default "durable run" */
  description?: string | undefined;
}

/** Options of {@link executeDurably}. */
export interface ExecuteDurablyOptions extends JournalOptions {
  /** Stops the run (cancel, shutdown). */
  signal?: AbortSignal | undefined;
  /** The run_code call id the run executes as. @default {@link runCallId}(run.id) */
  callId?: string | undefined;
  /** A run slot already taken for this life (`Runtime.reserveRun`). @default the runner waits for one */
  slot?: (() => void) | undefined;
  /** Told when the body of nested call `callId` starts (its start is journaled): it leaves the queue. */
  onBodyStart?: ((callId: string) => void) | undefined;
}

/** The run_code call id a durable run executes as. */
export function runCallId(runId: string): string {
  return `run:${runId}`;
}

/**
 * Installs the durable execute middleware on `runtime` (once per runtime, before the first
 * durable run); returns the function that removes it.
 */
export function installDurableCalls(runtime: Pick<Runtime, 'use'>): () => void {
  return runtime.use({ execute: durableCallsMiddleware });
}

/**
 * Executes `run` durably against `store`: a first run, or the replay of a run whose earlier life
 * was cut short. Never rejects on the program's account; rejects only if the store cannot be read.
 * Tool idempotency comes from the scope's catalog (`annotations.idempotentHint`) unless
 * `options.idempotent` says otherwise.
 */
export async function executeDurably(
  runtime: Pick<Runtime, 'execute' | 'schemas'>,
  store: JournalStore,
  run: DurableRunSpec,
  options: ExecuteDurablyOptions = {},
): Promise<ReplayVerdict> {
  const idempotent =
    options.idempotent ??
    ((tool: string): boolean =>
      runtime.schemas(run.scope).find((s) => s.name === tool)?.annotations?.idempotentHint ===
      true);
  const journal = await openJournal(store, run.id, {
    ...options,
    idempotent,
    lifeSignal: options.lifeSignal ?? options.signal,
  });
  const callId = options.callId ?? runCallId(run.id);
  const detach = attachDurableSeam(callId, {
    tape: journal.tape,
    call: (name, args, trace, exec) => journal.call(name, args, trace, exec),
    bodyStarts: async (id) => {
      await journal.bodyStarts(id);
      options.onBodyStart?.(id);
    },
    slot: options.slot,
  });
  try {
    const signal =
      options.signal === undefined
        ? journal.signal
        : AbortSignal.any([options.signal, journal.signal]);
    const result = await runtime.execute(
      {
        id: callId,
        name: RUN_CODE,
        args: { code: run.program, description: run.description ?? 'durable run' },
      },
      { scope: run.scope, signal },
    );
    await journal.flush();
    return journal.verdict(result);
  } finally {
    detach();
  }
}
