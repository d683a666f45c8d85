import { describe, expect, it } from 'vitest';
import { createNativeChecker } from '../../src/compile/index.js';
import {
  checkersClosedAfterEach,
  childProcesses,
  READ_SDK,
  stopProcess,
  waitFor,
  WRITE_SDK,
} from './helpers.js';

const newChecker = checkersClosedAfterEach();

const GOOD = 'return (await tools.read_file({ path: "a" })).size;';

/** The single compiler process of this test (no other checker is alive). */
function onlyCompiler(): number {
  const pids = childProcesses();
  expect(pids).toHaveLength(1);
  return pids[0] ?? 0;
}

describe('native checker: process lifecycle', () => {
  it('starts the compiler on warmup and leaves no process behind after close', async () => {
    const checker = newChecker();
    expect(checker.stats()).toEqual({
      checks: 0,
      processes: 0,
      cachedSdks: 0,
      restarts: 0,
      rssBytes: 0,
      cache: { hits: 0, misses: 0, entries: 0, bytes: 0 },
    });
    await checker.warmup(READ_SDK);
    expect(checker.stats().processes).toBe(1);
    expect(checker.stats().cachedSdks).toBe(1);
    expect(checker.stats().rssBytes).toBeGreaterThan(1024 * 1024);
    onlyCompiler();
    await expect(checker.check(GOOD, READ_SDK)).resolves.toEqual([]);
    await checker.close();
    expect(childProcesses()).toEqual([]);
    expect(checker.stats().processes).toBe(0);
    await checker.close(); // idempotent
    await expect(checker.check(GOOD, READ_SDK)).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
  });

  it('closes while checks are in flight: they reject, no process is left', async () => {
    const checker = newChecker();
    await checker.warmup();
    const pending = Array.from({ length: 5 }, () =>
      checker.check(GOOD, READ_SDK).then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    await checker.close();
    for (const outcome of await Promise.all(pending)) {
      if (outcome !== 'ok') expect(outcome).toMatchObject({ code: 'SHUTTING_DOWN' });
    }
    expect(childProcesses()).toEqual([]);
  });

  it('retries the in-flight checks of a crashed compiler once on a new process', async () => {
    const checker = newChecker();
    await checker.warmup(READ_SDK);
    await checker.warmup(WRITE_SDK);
    const pid = onlyCompiler();
    await stopProcess(pid); // the checks below are certainly in flight when the process dies
    const inFlight = [
      checker.check(GOOD, READ_SDK),
      checker.check('return (await tools.read_file({ path: "a" })).nope;', READ_SDK),
      checker.check('await tools.write_file({ path: "a", content: "b" });', WRITE_SDK),
      checker.check(GOOD, READ_SDK), // queued: both READ_SDK slots are busy
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(pid, 'SIGKILL');
    const results = await Promise.all(inFlight);
    expect(results.map((diags) => diags.map((d) => d.code))).toEqual([[], [2339], [], []]);
    expect(checker.stats()).toMatchObject({ processes: 1, restarts: 1 });
    expect(onlyCompiler()).not.toBe(pid);
  });

  it('fails a check that loses its process twice with INTERNAL_ERROR (one retry only)', async () => {
    const checker = newChecker();
    await checker.warmup(READ_SDK);
    const first = onlyCompiler();
    await stopProcess(first);
    const inFlight = checker.check(GOOD, READ_SDK);
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(first, 'SIGKILL');
    // The retry goes to a new process: stop it before it answers, then kill it too.
    await waitFor(() => childProcesses().some((pid) => pid !== first));
    const second = childProcesses().find((pid) => pid !== first) ?? 0;
    await stopProcess(second);
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(second, 'SIGKILL');
    await expect(inFlight).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringContaining('exited unexpectedly') as unknown,
    });
    await expect(checker.check(GOOD, READ_SDK)).resolves.toEqual([]);
    expect(checker.stats().restarts).toBe(2);
  });

  it('restarts after the compiler died while idle', async () => {
    const checker = newChecker();
    await checker.warmup(READ_SDK);
    process.kill(onlyCompiler(), 'SIGKILL');
    await waitFor(() => checker.stats().processes === 0);
    const diags = await checker.check(
      'return (await tools.read_file({ path: "a" })).nope;',
      READ_SDK,
    );
    expect(diags.map((d) => d.code)).toEqual([2339]);
  });

  it('times out a hung check (LIMIT_EXCEEDED), kills the compiler, retries the later check, works again', async () => {
    // The limit also bounds the restarted compiler's start and its SDK compile for the retried check:
    // ~0.2 s quiet, over 400 ms on a loaded machine (CI's matrix failed so), so it is generous here.
    const checker = newChecker({ timeoutMs: 5_000 });
    await checker.warmup(READ_SDK);
    await checker.warmup(WRITE_SDK);
    const pid = onlyCompiler();
    await stopProcess(pid);
    const hung = checker.check(GOOD, READ_SDK);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const later = checker.check('await tools.write_file({ path: "a", content: "b" });', WRITE_SDK);
    await expect(hung).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('timeoutMs = 5000 ms') as unknown,
      details: { kind: 'typecheck', limit: 'timeoutMs', limitMs: 5_000 },
    });
    await expect(later).resolves.toEqual([]);
    expect(childProcesses()).not.toContain(pid);
    await expect(checker.check(GOOD, READ_SDK)).resolves.toEqual([]);
    expect(checker.stats().restarts).toBe(1);
  });

  it('rejects an aborted in-flight check quickly and keeps working', async () => {
    const checker = newChecker();
    await checker.warmup(READ_SDK);
    const pid = onlyCompiler();
    await stopProcess(pid);
    const controller = new AbortController();
    const aborted = checker.check(GOOD, READ_SDK, { signal: controller.signal });
    // A queued check (both slots busy) is aborted too, before it runs.
    const queuedController = new AbortController();
    const busy = checker.check(GOOD, READ_SDK);
    const queued = checker.check(GOOD, READ_SDK, { signal: queuedController.signal });
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort();
    queuedController.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(queued).rejects.toMatchObject({ code: 'ABORTED' });
    process.kill(pid, 'SIGCONT');
    await expect(busy).resolves.toEqual([]);
    await expect(checker.check(GOOD, READ_SDK)).resolves.toEqual([]);
    expect(onlyCompiler()).toBe(pid);
  });

  it('keeps a bounded number of SDKs and recompiles an evicted one on demand', async () => {
    const checker = newChecker({ maxSdks: 2 });
    const third = { hash: 'third', text: READ_SDK.text.replace('list_dir', 'list_files') };
    const write = 'await tools.write_file({ path: "a", content: "b" });';
    for (let round = 0; round < 2; round++) {
      await expect(checker.check(GOOD, READ_SDK)).resolves.toEqual([]);
      await expect(checker.check(write, WRITE_SDK)).resolves.toEqual([]);
      await expect(checker.check('await tools.list_files({ path: "." });', third)).resolves.toEqual(
        [],
      );
      expect(checker.stats().cachedSdks).toBeLessThanOrEqual(2);
    }
    expect(checker.stats().checks).toBe(6);
  });

  it('rejects invalid options', () => {
    expect(() => createNativeChecker({ slotsPerSdk: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
    expect(() => createNativeChecker({ timeoutMs: 1.5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});
