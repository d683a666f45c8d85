/** Isolates serve one partition (the runtime's scope): never a run of another tenant. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SandboxPool } from '../../src/sandbox/index.js';
import { expectOk, program, recordingDispatch } from './helpers.js';

const pool = new SandboxPool({ size: 1, maxIdle: 2, defaultLimits: { memoryMb: 16 } });
beforeAll(() => pool.warmup());
afterAll(() => pool.close());

const runAs = async (partition: string, body: string) =>
  expectOk(
    await pool.run({
      js: program(body),
      bindings: [],
      dispatch: recordingDispatch().dispatch,
      partition,
    }),
  );

describe('partitions', () => {
  it('reuses an isolate within a partition and never across partitions', async () => {
    await runAs('tenant-a', 'return 1;');
    // Counters are final only once no isolate is being created or renewed.
    const rested = () => expect(pool.stats()).toMatchObject({ preparing: 0, running: 0 });
    await vi.waitFor(rested);
    const afterA = pool.stats().created;
    await runAs('tenant-a', 'return 2;');
    await vi.waitFor(rested);
    expect(pool.stats().created, 'a second run of tenant-a reuses its isolate').toBe(afterA);
    // The isolate of tenant-a is warm; tenant-b must get another one.
    await runAs('tenant-b', 'return 3;');
    expect(pool.stats().created).toBeGreaterThan(afterA);
  });
});
