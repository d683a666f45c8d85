/**
 * `POST /v1/check` holds one of its scope's run slots until the compiler answers (a tenant's checks
 * queue behind its own runs, as its runs do), and gives it back when the check ends, however it
 * ends. The compiler here waits at a gate the test opens, so nothing depends on timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';
import type { TypeChecker } from '../../src/compile/types.js';
import { createHttpApp, type HttpApp } from '../../src/server/index.js';
import { deferred, jsonHeaders, KEY_A } from './fixtures.js';

let gate = deferred();
let entered = deferred();
let checks = 0;
/** A compiler that answers "well typed" once the test opens the gate, or gives up when aborted. */
const gatedChecker: TypeChecker = {
  async check(_program, _sdk, options) {
    checks += 1;
    entered.resolve();
    await new Promise<void>((resolve, reject) => {
      void gate.promise.then(resolve);
      options?.signal?.addEventListener('abort', () => reject(new Error('aborted')), {
        once: true,
      });
    });
    return [];
  },
  warmup: () => Promise.resolve(),
  close: () => Promise.resolve(),
  stats: () => ({ checks, processes: 0, cachedSdks: 0, restarts: 0, rssBytes: 0 }),
};

let runtime: Runtime;
let app: HttpApp;
beforeAll(async () => {
  runtime = await createRuntime({
    tools: [
      defineTool({
        name: 'alpha.echo',
        description: 'Echoes a text.',
        input: z.object({ text: z.string() }),
        execute: ({ text }: { text: string }) => text,
      }),
    ],
    scopes: { alpha: { mode: 'code' } },
    codeMode: {
      checker: gatedChecker,
      // One run slot in all, and no queue: a second program is refused at once while it is held.
      admission: { maxConcurrentRuns: 1, maxConcurrentRunsPerScope: 1, maxQueuedRuns: 0 },
      workers: { maxWorkers: 1 },
    },
  });
  app = createHttpApp({
    runtime,
    defaultScope: 'alpha',
    apiKeys: [{ key: KEY_A, scope: 'alpha' }],
  });
});
afterAll(() => runtime.close());

const post = (path: string, body: unknown): Promise<Response> =>
  Promise.resolve(
    app.request(path, { method: 'POST', headers: jsonHeaders(KEY_A), body: JSON.stringify(body) }),
  );
const code = "return await tools.alpha.echo({ text: 'hi' });";

describe('POST /v1/check and the run slots', () => {
  it('holds a run slot while the compiler works, and gives it back when the check answers', async () => {
    gate = deferred();
    entered = deferred();
    const checking = post('/v1/check', { code });
    await entered.promise; // the check holds the one slot, waiting for the compiler
    const refused = await post('/v1/run', { code, description: 'echo' });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('OVERLOADED');
    gate.resolve();
    const checked = await checking;
    expect(checked.status).toBe(200);
    expect(await checked.json()).toMatchObject({ ok: true, diagnostics: [] });
    // The slot is free again: the same program runs.
    const ran = await post('/v1/run', { code, description: 'echo' });
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({ ok: true });
  });

  it('gives the slot back when the check is abandoned', async () => {
    gate = deferred();
    entered = deferred();
    const controller = new AbortController();
    const abandoned = Promise.resolve(
      app.request('/v1/check', {
        method: 'POST',
        headers: jsonHeaders(KEY_A),
        // Another program than the first test's: a checked one may be answered from a cache.
        body: JSON.stringify({ code: `${code} // abandoned` }),
        signal: controller.signal,
      }),
    );
    await entered.promise;
    controller.abort(); // the client goes away; the compiler never answers it
    await abandoned;
    // The slot is free: the next check reaches the compiler instead of being refused.
    entered = deferred();
    const next = post('/v1/check', { code: `${code} // next` });
    const first = await Promise.race([
      entered.promise.then(() => 'compiler' as const),
      next.then((r) => r.status),
    ]);
    expect(first).toBe('compiler');
    gate.resolve();
    expect((await next).status).toBe(200);
  });
});
