/** A tiny onion composer for execute middleware (after hono's compose): it refuses a double `next()`. */
import type { BodyOutcome, ExecuteContext, ExecuteMiddleware } from './types.js';

/** The error a middleware gets when it calls `next()` a second time. */
export class DoubleNextError extends Error {
  constructor() {
    super('execute middleware called next() more than once');
    this.name = 'DoubleNextError';
  }
}

/** Composes middleware around `body`. Each `next()` may be called at most once. */
export function compose(
  middleware: readonly ExecuteMiddleware[],
  body: () => Promise<BodyOutcome>,
): (ctx: ExecuteContext) => Promise<BodyOutcome> {
  return (ctx) => {
    let index = -1;
    const dispatch = (i: number): Promise<BodyOutcome> => {
      if (i <= index) return Promise.reject(new DoubleNextError());
      index = i;
      const mw = middleware[i];
      if (!mw) return body();
      try {
        return Promise.resolve(mw(ctx, () => dispatch(i + 1)));
      } catch (err) {
        // Whatever it is, as it is: runBody reads it with bodyError.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        return Promise.reject(err);
      }
    };
    return dispatch(0);
  };
}
