import type * as Oxc from 'oxc-transform';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TypeChecker } from '../../src/compile/index.js';
import { READ_SDK, checkersClosedAfterEach } from './helpers.js';

/** Counts calls of oxc's transform: with a verdict passed in, the checker must never call it. */
const oxc = vi.hoisted(() => ({ calls: 0 }));
vi.mock('oxc-transform', async (importOriginal) => {
  const original = await importOriginal<typeof Oxc>();
  return {
    ...original,
    transformSync: (...args: Parameters<typeof original.transformSync>) => {
      oxc.calls++;
      return original.transformSync(...args);
    },
  };
});

const { transpileProgram } = await import('../../src/compile/index.js');

const newChecker = checkersClosedAfterEach();
let checker: TypeChecker;

beforeEach(async () => {
  checker = newChecker();
  await checker.warmup(READ_SDK);
});

const BAD_PROPERTY = 'return (await tools.read_file({ path: "a" })).nope;';

describe("the transpiler's verdict", () => {
  it('is used as given: the checker never calls the transpiler', async () => {
    oxc.calls = 0;
    const diags = await checker.check(BAD_PROPERTY, READ_SDK, { transpiled: { ok: true } });
    expect(diags.map((d) => d.code)).toEqual([2339]);
    // An escape verdict (as a sandbox worker would send it, JSON) refuses the program before compiling.
    const escape = transpileProgram('}); evil(); (function () {');
    const wire = JSON.parse(JSON.stringify(escape)) as typeof escape;
    const calls = oxc.calls;
    const refused = await checker.check('}); evil(); (function () {', READ_SDK, {
      transpiled: wire,
    });
    expect(refused).toEqual(wire.ok ? [] : wire.diagnostics);
    expect(refused[0]?.message).toContain('must be the body of one function');
    expect(oxc.calls).toBe(calls);
  });

  it("adds a failed verdict's parse errors when the compiler found none", async () => {
    const parseError = {
      kind: 'syntax' as const,
      code: 0,
      category: 'error' as const,
      message: 'oxc says no',
      line: 1,
      column: 1,
    };
    const diags = await checker.check('return 1;', READ_SDK, {
      transpiled: { ok: false, diagnostics: [parseError] },
    });
    expect(diags).toEqual([parseError]);
  });

  it('is computed in process when not given (library use)', async () => {
    oxc.calls = 0;
    const diags = await checker.check('}); evil(); (function () {', READ_SDK);
    expect(diags[0]?.message).toContain('must be the body of one function');
    expect(oxc.calls).toBe(1);
  });

  it('rejects a malformed verdict with INVALID_ARGS', async () => {
    for (const transpiled of [{ ok: 'yes' }, { ok: false }, null, 'ok']) {
      await expect(
        checker.check('return 1;', READ_SDK, { transpiled } as unknown as Parameters<
          TypeChecker['check']
        >[2]),
      ).rejects.toMatchObject({ code: 'INVALID_ARGS' });
    }
  });
});
