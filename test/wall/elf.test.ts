// The wall's library directories come from each binary's own loader (`<loader> --list`), read from
// its ELF program headers, with `ldd` as the fallback; they must be exactly what `ldd` reports.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedLibraryDirs } from '../../src/wall/bwrap.js';
import { elfLoading } from '../../src/wall/elf.js';

const linux = process.platform === 'linux';
const dir = mkdtempSync(join(tmpdir(), 'isocode-elf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The directories `ldd` names, as the wall read them before. */
function lddDirs(binary: string): string[] {
  const out = spawnSync('ldd', [binary], { encoding: 'utf8', env: {} });
  const dirs = new Set<string>();
  for (const m of out.stdout.matchAll(/(\/[^\s()]+)/g)) if (m[1]) dirs.add(dirname(m[1]));
  return [...dirs];
}

const addon = createRequire(import.meta.url).resolve('isolated-vm/out/isolated_vm.node');

/** A 64-bit little-endian ELF header with one program header of `type` pointing at `payload`. */
function elf64(
  type: number,
  payload: Buffer,
  overrides: { count?: number; length?: number; size?: number } = {},
): Buffer {
  const head = Buffer.alloc(64 + 56);
  head.writeUInt32BE(0x7f454c46, 0);
  head[4] = 2;
  head[5] = 1;
  head.writeBigUInt64LE(64n, 32); // e_phoff
  head.writeUInt16LE(overrides.size ?? 56, 54); // e_phentsize
  head.writeUInt16LE(overrides.count ?? 1, 56); // e_phnum
  head.writeUInt32LE(type, 64);
  head.writeBigUInt64LE(BigInt(head.length), 64 + 8); // p_offset
  head.writeBigUInt64LE(BigInt(overrides.length ?? payload.length), 64 + 32); // p_filesz
  return Buffer.concat([head, payload]);
}

/** The same for a 32-bit big-endian file. */
function elf32be(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(52 + 32);
  head.writeUInt32BE(0x7f454c46, 0);
  head[4] = 1;
  head[5] = 2;
  head.writeUInt32BE(52, 28);
  head.writeUInt16BE(32, 42);
  head.writeUInt16BE(1, 44);
  head.writeUInt32BE(type, 52);
  head.writeUInt32BE(head.length, 52 + 4);
  head.writeUInt32BE(payload.length, 52 + 16);
  return Buffer.concat([head, payload]);
}

function file(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe.runIf(linux)('the library directories of a walled binary', () => {
  it('are what ldd reports, for Node, its addon and a system binary', () => {
    for (const binary of [process.execPath, addon, '/bin/sh'])
      expect(sharedLibraryDirs(binary), binary).toEqual(lddDirs(binary));
  });

  it('Node names its loader; the addon is linked dynamically and names none', () => {
    const node = elfLoading(process.execPath);
    expect(node?.dynamic).toBe(true);
    expect(node?.interpreter).toMatch(/^\/.*ld-.*\.so/);
    expect(elfLoading(addon)).toEqual({ interpreter: undefined, dynamic: true });
  });
});

describe('reading program headers', () => {
  const loader = Buffer.from('/lib/ld-test.so.1\0');

  it('reads the loader of 64-bit little-endian and 32-bit big-endian files', () => {
    expect(elfLoading(file('le64', elf64(3, loader)))).toEqual({
      interpreter: '/lib/ld-test.so.1',
      dynamic: true,
    });
    expect(elfLoading(file('be32', elf32be(3, loader)))).toEqual({
      interpreter: '/lib/ld-test.so.1',
      dynamic: true,
    });
  });

  it('tells a static file (no PT_DYNAMIC, no PT_INTERP) from a shared object (PT_DYNAMIC only)', () => {
    expect(elfLoading(file('static', elf64(1, Buffer.alloc(0))))).toEqual({
      interpreter: undefined,
      dynamic: false,
    });
    expect(elfLoading(file('shared', elf64(2, Buffer.alloc(0))))).toEqual({
      interpreter: undefined,
      dynamic: true,
    });
  });

  it('gives up (undefined) on text, a truncated file and headers that ask for too much', () => {
    expect(elfLoading(file('text', '#!/bin/sh\necho hi\n'))).toBeUndefined();
    expect(elfLoading(file('short', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1])))).toBeUndefined();
    expect(elfLoading(file('many', elf64(3, loader, { count: 60_000 })))).toBeUndefined();
    expect(elfLoading(file('wide', elf64(3, loader, { size: 65_535 })))).toBeUndefined();
    expect(elfLoading(file('long', elf64(3, loader, { length: 1 << 30 })))).toBeUndefined();
    expect(elfLoading(file('past-end', elf64(3, loader, { length: 4000 })))).toBeUndefined();
    expect(elfLoading(join(dir, 'missing'))).toBeUndefined();
  });
});
