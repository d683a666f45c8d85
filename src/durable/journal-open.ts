/**
 * Opening a durable run's journal: what its earlier lives recorded, refused whole when any of it
 * cannot be trusted; and the execute middleware that journals a call `started` before its body
 * runs. How the journal replays is `replay.ts` (docs/decisions/021-replay.md).
 */
import { IsocodeError } from '../errors.js';
import type { ExecuteMiddleware } from '../executor/types.js';
import { durableSeamOf } from '../run-code/durable-seam.js';
import { cutText } from '../text/clip.js';
import type { JournalOptions, JournalStore } from './journal-types.js';
import { RunJournal } from './replay.js';

/** Loads what run `runId` recorded and returns the journal of its next life. */
export async function openJournal(
  store: JournalStore,
  runId: string,
  options: JournalOptions = {},
): Promise<RunJournal> {
  const [calls, values] = await Promise.all([store.listCalls(runId), store.listValues(runId)]);
  // What the journal cannot trust: a damaged call (did it take effect?), a damaged recorded value
  // or a gap among them (a replay would hand the program other values than its first life saw).
  const unreadable = [
    ...calls.flatMap((c) =>
      c.damaged === undefined ? [] : [`call ${cutText(c.key, 64)}: ${c.damaged.join(', ')}`],
    ),
    ...values.flatMap((v, i) =>
      v.damaged !== undefined
        ? [`recorded value ${v.seq}: ${v.damaged.join(', ')}`]
        : v.seq !== i + 1
          ? [`recorded value ${i + 1}: missing`]
          : [],
    ),
  ];
  if (unreadable.length > 0)
    throw new IsocodeError(
      'STORE_CORRUPT',
      `the stored journal of this run cannot be read (${unreadable.slice(0, 5).join('; ')}); it was failed rather than run again`,
    );
  const tape = {
    clock: values.filter((v) => v.kind === 'date').map((v) => v.value),
    random: values.filter((v) => v.kind === 'random').map((v) => v.value),
  };
  return new RunJournal(store, runId, { calls, tape }, options);
}

/**
 * The execute middleware of durable runs (install once per runtime): just before the body of a
 * durable run's nested call runs, its journal records it `started`, and the body waits for that
 * write. Other calls pass straight through.
 */
export const durableCallsMiddleware: ExecuteMiddleware = async (ctx, next) => {
  const parent = ctx.call.parentId;
  const seam = parent === undefined ? undefined : durableSeamOf(parent);
  if (seam?.bodyStarts === undefined) return next();
  try {
    await seam.bodyStarts(ctx.call.id);
  } catch {
    return {
      ok: false,
      code: 'INTERNAL_ERROR',
      message: 'the durable run could not journal this call; it was not run',
    };
  }
  return next();
};
