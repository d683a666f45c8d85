/**
 * The store as a dependency, through HTTP: `/healthz` says `degraded` (with the store's error and
 * what does not work) while the store does not answer, and `ok` again once it does; `/metrics`
 * carries the durable gauges. The store here is a contract-level memory store whose `ping` the test
 * breaks, as an unreachable server would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsocodeError } from '../../src/errors.js';
import { createDurableRuntime, type DurableRuntime } from '../../src/durable/index.js';
import { buildHttpApp, type HttpApp } from '../../src/server/app.js';
import { createMemoryStore } from './memory-store.js';
import { until } from '../support/until.js';

let runtime: DurableRuntime;
let app: HttpApp;
let down = false;

const health = async (): Promise<Record<string, unknown>> =>
  (await (await app.request('/healthz')).json()) as Record<string, unknown>;

beforeAll(async () => {
  const store = createMemoryStore();
  const ping = store.ping.bind(store);
  const listClaimable = store.listClaimable.bind(store);
  const unreachable = () =>
    new IsocodeError('STORE_UNAVAILABLE', 'the run store is unreachable: connection refused');
  store.listClaimable = (...args) =>
    down ? Promise.reject(unreachable()) : listClaimable(...args);
  store.ping = () =>
    down
      ? Promise.reject(
          new IsocodeError('STORE_UNAVAILABLE', 'the run store is unreachable: connection refused'),
        )
      : ping();
  runtime = await createDurableRuntime({
    store,
    recovery: { leaseMs: 1000, scanMs: 50 },
    scopes: { default: { mode: 'code' } },
    codeMode: { typecheck: 'off' },
  });
  app = buildHttpApp({ runtime, defaultScope: 'default', apiKeys: [], runs: runtime.runs }).app;
});
afterAll(async () => {
  await runtime?.close();
});

describe('the store in /healthz and /metrics', () => {
  it('degraded while the store does not answer, ok again after', async () => {
    expect(await until(async () => ((await health()).store === 'ok' ? true : undefined))).toBe(
      true,
    );
    down = true;
    const degraded = await until(async () => {
      const h = await health();
      return h.status === 'degraded' ? h : undefined;
    });
    expect(degraded).toMatchObject({
      store: 'unreachable',
      storeError: expect.stringContaining('connection refused') as unknown,
      degraded: ['/v1/runs', '/v1/approvals'],
    });
    const metrics = await (await app.request('/metrics')).text();
    expect(metrics).toMatch(/^isocode_durable_store_up 0$/m);
    down = false;
    expect(await until(async () => ((await health()).status === 'ok' ? true : undefined))).toBe(
      true,
    );
    expect(await (await app.request('/metrics')).text()).toMatch(/^isocode_durable_store_up 1$/m);
  }, 60_000);
});
