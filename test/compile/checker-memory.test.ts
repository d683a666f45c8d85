import { describe, expect, it } from 'vitest';
import { createNativeChecker } from '../../src/compile/index.js';
import {
  checkersClosedAfterEach,
  childProcesses,
  READ_SDK,
  waitFor,
  WRITE_SDK,
} from './helpers.js';

const newChecker = checkersClosedAfterEach();

/** A type-level bomb: the compiler builds ever larger tuple types (~50 MB/s, past 350 MB if let run). */
const BOMB = [
  'type Rep<T, N extends number, A extends unknown[] = []> = A["length"] extends N ? A : Rep<T, N, [...A, T]>;',
  'type Big = Rep<{ a: 1 }, 999>;',
  'type F<X> = { [K in keyof X]: F2<X[K]> };',
  'type F2<X> = { [K in keyof X]: [X[K], X[K], Rep<X[K], 40>] };',
  'const b = null as unknown as F<Rep<Big, 200>>;',
  'const n: number = b;',
].join('\n');
const CAP = 192 * 1024 * 1024;
const WRITE = 'await tools.write_file({ path: "a", content: "b" });';

describe('native checker: memory cap', () => {
  it('stops a type-level bomb at the cap with LIMIT_EXCEEDED; the next check of another SDK succeeds', async () => {
    const checker = newChecker({ maxRssBytes: CAP, timeoutMs: 60_000 });
    await checker.warmup(READ_SDK);
    const [pid] = childProcesses();
    const error = await checker.check(BOMB, READ_SDK).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('maxRssBytes = 192 MiB') as unknown,
      details: { kind: 'typecheck', limit: 'maxRssBytes', limitBytes: CAP },
    });
    const rss = (error as { details: { rssBytes: number } }).details.rssBytes;
    expect(rss).toBeGreaterThan(CAP);
    await waitFor(() => !childProcesses().includes(pid ?? 0));
    await expect(checker.check(WRITE, WRITE_SDK)).resolves.toEqual([]);
    const stats = checker.stats();
    expect(stats.restarts).toBe(1);
    expect(stats.rssBytes).toBeGreaterThan(0);
    expect(stats.rssBytes).toBeLessThan(CAP);
  });

  it("retries other SDKs' checks in flight when a bomb is killed, and fails only the bomb", async () => {
    // Without the result cache: the benign checks repeat two programs, and each must reach a process.
    const checker = newChecker({ maxRssBytes: CAP, timeoutMs: 60_000, cache: false });
    await checker.warmup(READ_SDK);
    await checker.warmup(WRITE_SDK);
    const bomb = checker.check(BOMB, READ_SDK).then(
      () => 'passed',
      (e: unknown) => (e as { code?: string }).code,
    );
    // Benign checks keep arriving while the bomb grows; those in flight at the kill are retried.
    const benign: Array<Promise<unknown>> = [];
    let settled = false;
    void bomb.finally(() => (settled = true));
    while (!settled) {
      benign.push(checker.check(WRITE, WRITE_SDK));
      benign.push(checker.check('return (await tools.read_file({ path: "a" })).size;', READ_SDK));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await bomb).toBe('LIMIT_EXCEEDED');
    expect(benign.length).toBeGreaterThan(2);
    for (const outcome of await Promise.allSettled(benign)) {
      expect(outcome).toEqual({ status: 'fulfilled', value: [] });
    }
    // The replacement process starts with the next check when none was in flight at the kill.
    await expect(checker.check(WRITE, WRITE_SDK)).resolves.toEqual([]);
    expect(checker.stats().restarts).toBe(1);
  });

  it('several bombs at once: each fails LIMIT_EXCEEDED on its own turn, a check beside them only waits', async () => {
    // Before, a check lost its process to another check's kill at most once: with three bombs in
    // flight the second kill failed the bystanders (INTERNAL_ERROR), another tenant's run included.
    const checker = newChecker({
      maxRssBytes: CAP,
      timeoutMs: 60_000,
      cache: false,
      slotsPerSdk: 3,
    });
    await checker.warmup(READ_SDK);
    await checker.warmup(WRITE_SDK);
    const code = (e: unknown): unknown => (e as { code?: string }).code;
    const bombs = [0, 1, 2].map((i) =>
      checker.check(`${BOMB}\n// bomb ${i}`, READ_SDK).then(() => 'passed', code),
    );
    const benign: Array<Promise<unknown>> = [];
    let settled = 0;
    for (const b of bombs) void b.finally(() => settled++);
    while (settled < bombs.length) {
      benign.push(checker.check(WRITE, WRITE_SDK).catch(code));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await Promise.all(bombs)).toEqual([
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
    ]);
    expect(new Set((await Promise.all(benign)).map((r) => JSON.stringify(r)))).toEqual(
      new Set(['[]']),
    );
  }, 240_000);

  it('rejects an invalid cap', () => {
    for (const maxRssBytes of [0, -1, 1.5]) {
      expect(() => createNativeChecker({ maxRssBytes })).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIG' }),
      );
    }
  });
});
