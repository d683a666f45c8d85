/** Reading a program from a file or stdin. */
import { createReadStream, existsSync } from 'node:fs';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { UsageError } from './errors.js';
import { packageInfo } from './pkg.js';

/** Most characters read from a program file or stdin (the runtime caps programs lower). */
const MAX_PROGRAM_BYTES = 8 * 1024 * 1024;

/** Reads `stream` whole, refusing it past {@link MAX_PROGRAM_BYTES} (a device or a huge file included). */
async function readBounded(stream: NodeJS.ReadableStream, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > MAX_PROGRAM_BYTES) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new UsageError(`${what} is too large (over ${MAX_PROGRAM_BYTES / 1024 / 1024} MiB)`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A program's text and the name it is shown under (`<stdin>` for `-`). */
export async function readProgram(
  file: string,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<{ code: string; label: string }> {
  if (file === '-')
    return { code: await readBounded(stdin, 'the program on stdin'), label: '<stdin>' };
  try {
    const stream = createReadStream(shippedPath(file));
    return { code: await readBounded(stream, `the program ${file}`), label: file };
  } catch (err) {
    if (err instanceof UsageError) throw err;
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

/**
 * Where a file named on the command line is read from: `file` itself, except that a relative
 * `examples/<file>` that does not exist in the working directory is taken from the examples shipped
 * in the isocode package. So `npx isocode run examples/hello.ts`, `isocode sdk --tools
 * examples/tools.mjs` and `--config examples/isocode.config.json` work in a clone and in an app that
 * installed the package alike. The one owner of that rule: program files, `--tools` and `--config`.
 */
export function shippedPath(file: string, cwd = process.cwd()): string {
  const path = normalize(file);
  if (isAbsolute(path) || !path.startsWith(`examples${sep}`)) return file;
  if (existsSync(resolve(cwd, path))) return file;
  const shipped = join(packageInfo().root, path);
  return existsSync(shipped) ? shipped : file;
}
