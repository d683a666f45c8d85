/**
 * What an ELF file says about its loading, read from its program headers: the dynamic loader it
 * names (`PT_INTERP`) and whether it is linked dynamically at all (`PT_DYNAMIC`). The wall needs the
 * directories of a binary's shared libraries; asking its loader (`<loader> --list <file>`, what
 * `ldd` runs) costs ~1 ms, `ldd` itself (a shell script) ~30 ms per binary on the start path of
 * every runtime and of the one-shot CLI (decision 034 §8).
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** How an ELF file is loaded. */
export interface ElfLoading {
  /** The loader it names (executables linked dynamically), else undefined (shared objects, static). */
  interpreter: string | undefined;
  /** False for a statically linked file: it loads no shared library. */
  dynamic: boolean;
}

const PT_DYNAMIC = 2;
const PT_INTERP = 3;
/** Bounds on what a header may ask to read (real files: tens of headers, a loader path of ~30 bytes). */
const MAX_HEADERS = 512;
const MAX_HEADER_SIZE = 256;
const MAX_PATH = 4096;

/** Reads `file`'s program headers; undefined when it is not an ELF file or cannot be read. */
export function elfLoading(file: string): ElfLoading | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const read = (length: number, position: number): Buffer | undefined => {
      const buffer = Buffer.alloc(length);
      return readSync(fd as number, buffer, 0, length, position) === length ? buffer : undefined;
    };
    const head = read(64, 0);
    if (head === undefined || head.readUInt32BE(0) !== 0x7f454c46) return undefined;
    const wide = head[4] === 2; // ELFCLASS64
    const little = head[5] === 1; // ELFDATA2LSB
    const u16 = (b: Buffer, at: number): number =>
      little ? b.readUInt16LE(at) : b.readUInt16BE(at);
    const u32 = (b: Buffer, at: number): number =>
      little ? b.readUInt32LE(at) : b.readUInt32BE(at);
    const word = (b: Buffer, at: number): number =>
      wide ? Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) : u32(b, at);
    const offset = word(head, wide ? 32 : 28);
    const size = u16(head, wide ? 54 : 42);
    const count = u16(head, wide ? 56 : 44);
    if (count > MAX_HEADERS || size < (wide ? 56 : 32) || size > MAX_HEADER_SIZE) return undefined;
    const table = read(size * count, offset);
    if (table === undefined) return undefined;
    let interpreter: string | undefined;
    let dynamic = false;
    for (let i = 0; i < count; i++) {
      const at = i * size;
      const type = u32(table, at);
      if (type === PT_DYNAMIC) dynamic = true;
      if (type !== PT_INTERP) continue;
      const length = word(table, at + (wide ? 32 : 16));
      if (length === 0 || length > MAX_PATH) return undefined;
      const path = read(length, word(table, at + (wide ? 8 : 4)));
      if (path === undefined) return undefined;
      interpreter = path.toString('latin1').replace(/\0[^]*$/, '');
    }
    return { interpreter, dynamic: dynamic || interpreter !== undefined };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
