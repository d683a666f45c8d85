/**
 * The boundary through the HTTP service: a tenant flooding its run slots gets 429 OVERLOADED with
 * Retry-After, the other tenant's runs go through, and a program that crashes or bloats its
 * sandbox process leaves the server serving (metrics show the restart).
 */
import { until } from '../sources/helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp, type HttpApp } from '../../src/server/index.js';
import type { Runtime, ToolResult } from '../../src/index.js';
import { echo, gate, tenants } from './helpers.js';

const KEY_A = 'tenant-a-key-0123456789abcdef';
const KEY_B = 'tenant-b-key-0123456789abcdef';
const g = gate();
let rt: Runtime;
let app: HttpApp;

beforeAll(async () => {
  rt = await tenants(
    {
      typecheck: 'off',
      limits: { cpuMs: 2_000, wallMs: 10_000, memoryMb: 32 },
      workers: { maxWorkers: 4, spareWorkers: 1, rssBudgetMb: 160 },
      admission: { maxConcurrentRuns: 4, maxConcurrentRunsPerScope: 1, maxQueuedRunsPerScope: 0 },
    },
    [echo, g.tool],
  );
  app = createHttpApp({
    runtime: rt,
    defaultScope: 'a',
    apiKeys: [
      { key: KEY_A, scope: 'a' },
      { key: KEY_B, scope: 'b' },
    ],
  });
});
afterAll(async () => {
  g.open();
  await rt.close();
});

const run = (key: string, code: string) =>
  app.request('/v1/run', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ code, description: 'boundary over http' }),
  });
const benignB = async (): Promise<unknown> => {
  const res = await run(KEY_B, 'return await tools.echo({ v: "b" });');
  expect(res.status).toBe(200);
  const body = (await res.json()) as ToolResult;
  return body.ok ? (body.value as { result: unknown }).result : body.error.code;
};

describe('the boundary over HTTP', () => {
  it('answers 429 OVERLOADED with Retry-After to a tenant over its run slots; the other tenant runs', async () => {
    const first = run(KEY_A, 'return await tools.wait({});');
    await until(() => g.entered() === 1, 'the state the test waits for');
    const refused = await run(KEY_A, 'return 1;');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = (await refused.json()) as { error: { code: string } };
    expect(body.error.code).toBe('OVERLOADED');
    expect(await benignB()).toBe('b');
    g.open();
    expect((await first).status).toBe(200);
  });

  it('keeps serving after programs that crash, pin or bloat their sandbox process', async () => {
    const hostile = [
      `return ${'['.repeat(40_000)}${']'.repeat(40_000)};`,
      'const a: number[] = []; for (let i = 0; i < 1e9; i++) a.push(i); return a.length;',
      'const a: number[] = []; a[2 ** 31] = 1; for (let i = 0; i < 20; i++) a.indexOf(5); return 1;',
      `const keep: unknown[] = []; for (let i = 0; i < 2e6; i++) keep.push(new Intl.Collator(['en', 'de', 'fr'][i % 3]), new Intl.NumberFormat('en', { minimumFractionDigits: i % 10 })); return keep.length;`,
    ];
    for (const code of hostile) {
      const res = await run(KEY_A, code);
      expect(res.status).toBe(200);
      const result = (await res.json()) as ToolResult;
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe('CODE_RUN_FAILED');
        expect(['syntax', 'memory', 'timeout']).toContain(result.error.details?.['kind']);
      }
      expect(await benignB()).toBe('b');
    }
    const metrics = await (
      await app.request('/metrics', { headers: { authorization: `Bearer ${KEY_A}` } })
    ).text();
    expect(metrics).toMatch(/isocode_sandbox_worker_restarts \d+/);
    const restarts = Number(/isocode_sandbox_worker_restarts (\d+)/.exec(metrics)?.[1]);
    expect(restarts).toBeGreaterThanOrEqual(3);
  });
});
