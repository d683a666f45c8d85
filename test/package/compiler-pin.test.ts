/**
 * TypeScript 7 is installed in two halves (decision 038): the API client, bundled into dist/ from the
 * `typescript-native` devDependency (the alias of `typescript@7`), and the compiler binary, from one
 * optional dependency per platform. The client speaks its own binary's protocol, so both halves are
 * the release the launcher names, and every platform typescript@7 ships a binary for is listed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPILER_VERSION, compilerBinary } from '../../src/compile/native-launcher.js';
import { ROOT } from './helpers.js';

const manifest = (path: string): Record<string, Record<string, string> | undefined> =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, string> | undefined>;

describe('the TypeScript 7 pin', () => {
  const own = manifest(join(ROOT, 'package.json'));
  const client = manifest(join(ROOT, 'node_modules/typescript-native/package.json'));

  it('the client is a devDependency of the release the launcher names, never a dependency', () => {
    expect(own.devDependencies?.['typescript-native']).toBe(`npm:typescript@${COMPILER_VERSION}`);
    expect(client.version).toBe(COMPILER_VERSION);
    expect(own.dependencies?.['typescript-native']).toBeUndefined();
    expect(own.dependencies?.typescript).toBeUndefined();
  });

  it("every platform package of that release is an optional dependency, at the client's version", () => {
    const platforms = Object.keys(client.optionalDependencies ?? {}).filter((p) =>
      p.startsWith('@typescript/typescript-'),
    );
    expect(platforms.length).toBeGreaterThan(10);
    for (const p of platforms) expect(own.optionalDependencies?.[p], p).toBe(COMPILER_VERSION);
    const listed = Object.keys(own.optionalDependencies ?? {}).filter((p) =>
      p.startsWith('@typescript/'),
    );
    expect(listed.sort()).toEqual(platforms.sort());
  });

  it("this machine's binary is found from isocode's own install", () => {
    expect(compilerBinary()).toMatch(/@typescript\/typescript-[^/]+\/lib\/tsc(\.exe)?$/);
  });
});
