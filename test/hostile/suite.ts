/**
 * The shape of every hostile test: one tenant attacks through a face, and the test asserts that the
 * host survives, the right error comes back, the server tree stays within its RSS budget, no core is
 * left burning after the answer, and a benign run of the other tenant succeeds right after.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkProgram, runProgram, type RunReply } from '../../benchmarks/load/client.js';
import { cpuTicks, descendants, sampleTreeRss } from '../../benchmarks/load/proc.js';
import type { HostileProgram } from '../../benchmarks/load/programs.js';
import { DEFAULT_RSS_BUDGET_MB } from '../../benchmarks/load/tenants.js';
import { BENIGN, startTenantFace, type TenantFace } from '../load/face.js';

/** Budget of the server tree's resident memory during an attack, in bytes. */
export const RSS_BUDGET_BYTES = DEFAULT_RSS_BUDGET_MB * 1024 * 1024;

/** Clock ticks per second of /proc CPU times (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * The least CPU (seconds) the server tree used in any of up to `windows` consecutive windows of
 * `windowMs` after the answer, stopping at the first window under `quiet`. A core left pinned (a
 * builtin spinning in a process nobody stopped) burns ~1 CPU-second per second in every window; the
 * start-up of the fresh worker that replaces a killed one burns for a while and then stops, however
 * long a loaded machine makes that while (a single window after a fixed settle time got 0.61 s on a
 * loaded CI machine: the replacement was still starting).
 */
async function cpuAfter(
  pid: number,
  quiet: number,
  windows = 15,
  windowMs = 1_000,
): Promise<number> {
  const ticks = (): number => [pid, ...descendants(pid)].reduce((sum, p) => sum + cpuTicks(p), 0);
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < windows && least >= quiet; i++) {
    const before = ticks();
    await new Promise((r) => setTimeout(r, windowMs));
    least = Math.min(least, (ticks() - before) / TICKS_PER_SECOND);
  }
  return least;
}

/** Asserts the answer to a hostile run: OVERLOADED with Retry-After, CODE_RUN_FAILED of a listed kind, or `ok` if listed. */
export function expectRunAnswer(reply: RunReply, kinds: readonly string[]): void {
  if (reply.outcome === 'refused') {
    expect(reply.code).toBe('OVERLOADED');
    return;
  }
  if (reply.outcome === 'ok') {
    expect(kinds, 'the run succeeded').toContain('ok');
    return;
  }
  expect(reply, 'a typed run failure').toMatchObject({
    outcome: 'run-failed',
    code: 'CODE_RUN_FAILED',
  });
  expect(kinds).toContain((reply as { kind?: string }).kind);
}

/** Asserts the face is alive and serves the other tenant a benign run. */
export async function expectOtherTenantServed(
  face: TenantFace,
  tenant = face.setup.tenants[1],
): Promise<void> {
  expect(face.server.exit(), `the server exited:\n${face.server.stderr()}`).toBeUndefined();
  const benign = await runProgram(face.server.url, tenant.key, BENIGN, 60_000);
  expect(benign.outcome, JSON.stringify(benign).slice(0, 500)).toBe('ok');
}

/** Options of {@link hostileSuite}. */
export interface SuiteOptions {
  /** `run`: POST /v1/run; `check`: POST /v1/check. */
  via: 'run' | 'check';
  /** A fresh server for every program (for classes that may take the server down). @default false */
  serverPerProgram?: boolean;
}

/** Declares one `it` per program of a class, each attacking as tenant a and checking on tenant b. */
export function hostileSuite(
  title: string,
  programs: readonly HostileProgram[],
  options: SuiteOptions,
): void {
  describe(`${title} via /v1/${options.via}`, () => {
    let face: TenantFace | undefined;
    const start = async () => {
      face = await startTenantFace();
    };
    const stop = async () => {
      await face?.close(5_000);
      face = undefined;
    };
    if (options.serverPerProgram) {
      beforeEach(start);
      afterEach(stop);
    } else {
      beforeAll(start);
      afterAll(stop);
    }
    for (const program of programs) {
      it(`${program.class}: ${program.name}`, { timeout: 180_000 }, async () => {
        const f = face!;
        const attacker = f.setup.tenants[0];
        const rss = sampleTreeRss(f.server.pid);
        if (options.via === 'run') {
          const reply = await runProgram(f.server.url, attacker.key, program.code, 90_000);
          const peak = rss.stop();
          expectRunAnswer(reply, program.kinds);
          expect(
            await cpuAfter(f.server.pid, 0.5),
            'CPU seconds burnt in each second after the answer',
          ).toBeLessThan(0.5);
          expect(peak, 'peak RSS of the server tree').toBeLessThanOrEqual(RSS_BUDGET_BYTES);
        } else {
          const reply = await checkProgram(f.server.url, attacker.key, program.code, 90_000);
          const peak = rss.stop();
          // 200 with diagnostics, or 422 LIMIT_EXCEEDED when the check hit the checker's limits.
          const status = (reply as { status?: number }).status;
          expect([200, 422], 'a check answer').toContain(status);
          if (status === 422) {
            expect((reply as { body: string }).body).toMatch(/LIMIT_EXCEEDED/);
            return;
          }
          const { ok } = JSON.parse((reply as { body: string }).body) as { ok: unknown };
          // A source that parses may type-check; every other answer is a diagnostic.
          expect(ok === false || program.kinds.includes('ok'), `check ok: ${String(ok)}`).toBe(
            true,
          );
          expect(peak, 'peak RSS of the server tree').toBeLessThanOrEqual(RSS_BUDGET_BYTES);
        }
        await expectOtherTenantServed(f);
      });
    }
  });
}
