/** Reading a program from a file or stdin. */
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { UsageError } from './errors.js';
import { packageInfo } from './pkg.js';

/** Most characters read from a program file or stdin (the runtime caps programs lower). */
const MAX_PROGRAM_BYTES = 8 * 1024 * 1024;

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > MAX_PROGRAM_BYTES) throw new UsageError('the program on stdin is too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A program's text and the name it is shown under (`<stdin>` for `-`). */
export async function readProgram(
  file: string,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<{ code: string; label: string }> {
  if (file === '-') return { code: await readStdin(stdin), label: '<stdin>' };
  try {
    return { code: await readFile(file, 'utf8'), label: file };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const shipped = code === 'ENOENT' ? await shippedExample(file) : undefined;
    if (shipped !== undefined) return shipped;
    const why =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'is a directory'
          : (err as Error).message;
    throw new UsageError(`cannot read program ${file}: ${why}`);
  }
}

/**
 * A relative `examples/<file>` that does not exist in the working directory is read from the
 * examples shipped in the isocode package, so `npx isocode run examples/hello.ts` works in a clone
 * and in an installed package alike.
 */
async function shippedExample(file: string): Promise<{ code: string; label: string } | undefined> {
  const path = normalize(file);
  if (isAbsolute(path) || !path.startsWith(`examples${sep}`)) return undefined;
  try {
    return { code: await readFile(join(packageInfo().root, path), 'utf8'), label: file };
  } catch {
    return undefined;
  }
}
