/** Reading a program from a file or stdin. */
import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.js';

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
    const why =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'is a directory'
          : (err as Error).message;
    throw new UsageError(`cannot read program ${file}: ${why}`);
  }
}
