/**
 * The checker's result cache, through the public checker: a repeated check is answered from the cache
 * with the same diagnostics; a changed program, SDK text (even under the same hash) or transpiler
 * verdict is checked again; another partition never reads an entry; the cache stays within its bounds.
 */
import { describe, expect, it } from 'vitest';
import type { SdkSource } from '../../src/compile/index.js';
import { READ_SDK, checkersClosedAfterEach } from './helpers.js';

const newChecker = checkersClosedAfterEach();

const WRONG = 'const r = await tools.read_file({ path: "a" });\nreturn r.contnt;';
const RIGHT = 'const r = await tools.read_file({ path: "a" });\nreturn r.content;';

describe('check cache', () => {
  it('answers a repeated check from the cache with the same diagnostics', async () => {
    const checker = newChecker();
    const first = await checker.check(WRONG, READ_SDK, { partition: 'a' });
    expect(first.map((d) => d.code)).toEqual([2551]);
    expect(checker.stats().cache).toMatchObject({ hits: 0, misses: 1, entries: 1 });
    const again = await checker.check(WRONG, READ_SDK, { partition: 'a' });
    expect(again).toEqual(first);
    expect(checker.stats().cache).toMatchObject({ hits: 1, misses: 1, entries: 1 });
    expect(checker.stats().checks).toBe(2);
    // Each answer is the caller's own copy: changing one changes no later answer.
    (again[0] as { message: string }).message = 'changed';
    again.length = 0;
    await expect(checker.check(WRONG, READ_SDK, { partition: 'a' })).resolves.toEqual(first);
  });

  it('checks a changed program, SDK text or verdict again', async () => {
    const checker = newChecker();
    await expect(checker.check(WRONG, READ_SDK)).resolves.toHaveLength(1);
    // A changed program (one more character).
    await expect(checker.check(RIGHT, READ_SDK)).resolves.toEqual([]);
    // The same hash with another text (the property now exists): never the stale answer.
    const renamed: SdkSource = {
      hash: READ_SDK.hash,
      text: READ_SDK.text.replace('content: string;', 'contnt: string;'),
    };
    await expect(checker.check(WRONG, renamed)).resolves.toEqual([]);
    await expect(checker.check(RIGHT, renamed)).resolves.toHaveLength(1);
    expect(checker.stats().cache).toMatchObject({ hits: 0, misses: 4 });
    // The key is the SDK's text, not its hash: another hash with a known text is a hit; the same
    // object whose text was replaced is answered for its new text, not by its old digest.
    const mutable = { hash: 'mutable', text: READ_SDK.text };
    await expect(checker.check(WRONG, mutable)).resolves.toHaveLength(1);
    mutable.text = renamed.text;
    await expect(checker.check(WRONG, mutable)).resolves.toEqual([]);
    expect(checker.stats().cache).toMatchObject({ hits: 2, misses: 4 });
    // A program the caller says does not parse is checked, not answered from the `ok` entry.
    const verdict = {
      ok: false as const,
      diagnostics: [
        {
          kind: 'syntax' as const,
          category: 'error' as const,
          message: 'from the transpiler',
          line: 1,
          column: 1,
        },
      ],
    };
    await expect(checker.check(RIGHT, READ_SDK, { transpiled: { ok: true } })).resolves.toEqual([]);
    const broken = await checker.check(RIGHT, READ_SDK, { transpiled: verdict });
    expect(broken.map((d) => d.message)).toEqual(['from the transpiler']);
    expect(checker.stats().cache).toMatchObject({ hits: 2, misses: 5 });
  });

  it('never answers one partition from another partition’s entry', async () => {
    const checker = newChecker();
    await checker.check(WRONG, READ_SDK, { partition: 'tenant-a' });
    await checker.check(WRONG, READ_SDK, { partition: 'tenant-b' });
    await checker.check(WRONG, READ_SDK);
    expect(checker.stats().cache).toMatchObject({ hits: 0, misses: 3, entries: 3 });
    await checker.check(WRONG, READ_SDK, { partition: 'tenant-b' });
    expect(checker.stats().cache).toMatchObject({ hits: 1, entries: 3 });
  });

  it('keeps at most maxEntries results, dropping the least recently used', async () => {
    const checker = newChecker({ cache: { maxEntries: 2 } });
    const program = (n: number): string => `return ${n};`;
    await checker.check(program(1), READ_SDK);
    await checker.check(program(2), READ_SDK);
    await checker.check(program(1), READ_SDK); // 1 is now the most recently used
    await checker.check(program(3), READ_SDK); // evicts 2
    expect(checker.stats().cache).toMatchObject({ entries: 2, hits: 1, misses: 3 });
    await checker.check(program(1), READ_SDK);
    expect(checker.stats().cache?.hits).toBe(2);
    await checker.check(program(2), READ_SDK);
    expect(checker.stats().cache).toMatchObject({ hits: 2, misses: 4, entries: 2 });
  });

  it('keeps at most maxBytes, and does not keep a result larger than that', async () => {
    const checker = newChecker({ cache: { maxBytes: 1200 } });
    for (let n = 0; n < 20; n++) await checker.check(`return ${n};`, READ_SDK);
    const { entries, bytes } = checker.stats().cache ?? { entries: 0, bytes: 0 };
    expect(bytes).toBeLessThanOrEqual(1200);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(20);
    // Twenty diagnostics with long messages weigh more than the whole cache: checked, not kept.
    const many = Array.from({ length: 20 }, (_, i) => `const v${i}: number = "${i}";`).join('\n');
    const diags = await checker.check(many, READ_SDK);
    expect(diags).toHaveLength(20);
    expect(checker.stats().cache?.bytes).toBeLessThanOrEqual(1200);
    await checker.check(many, READ_SDK);
    expect(checker.stats().cache?.hits).toBe(0);
  });

  it('can be turned off, and refuses invalid bounds', async () => {
    const checker = newChecker({ cache: false });
    await checker.check(WRONG, READ_SDK);
    await checker.check(WRONG, READ_SDK);
    expect(checker.stats().cache).toBeUndefined();
    expect(checker.stats().checks).toBe(2);
    expect(() => newChecker({ cache: { maxEntries: -1 } })).toThrow(/maxEntries/);
    await expect(checker.check(WRONG, READ_SDK, { partition: 7 as never })).rejects.toMatchObject({
      code: 'INVALID_ARGS',
    });
  });
});
