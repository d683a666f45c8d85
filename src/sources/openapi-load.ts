/**
 * Loading an OpenAPI document: read the file or fetch the URL (bounded in size and time), resolve
 * every `$ref` with @apidevtools/json-schema-ref-parser's `bundle` (external documents are pulled
 * in, so only local references remain, and a recursive schema stays a reference instead of an
 * endless object), then check the shape tool generation relies on. JSON only (decision record 036).
 * Every failure is INVALID_CONFIG.
 */
import { thrownText } from '../errors.js';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FileInfo, ParserOptions } from '@apidevtools/json-schema-ref-parser';
import { IsocodeError, isIsocodeError } from '../index.js';
import { jsonTooDeep } from '../json.js';
import { importOptional } from '../optional.js';
import { fetchDocument } from './openapi-http.js';
import { isRec } from './openapi-schema.js';

/** A loaded, bundled OpenAPI document. */
export interface LoadedSpec {
  /** The bundled document: only local `$ref`s remain. */
  document: Record<string, unknown>;
  /** `openapi` is 3.0.x (else 3.1.x). */
  v30: boolean;
  /** Where it was read: a `file:` or an `http(s):` URL. */
  location: URL;
}

/** Options of {@link loadSpec}. */
export interface LoadSpecOptions {
  /** Most bytes of each document read (the root and every external `$ref`). */
  maxBytes: number;
  /** Time for reading and resolving everything, in milliseconds. */
  timeoutMs: number;
}

/** Rejects with the signal's reason once it aborts (never settles otherwise). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

/** The location of a spec: an `http(s):` URL, a `file:` URL, or a path (relative to the working directory). */
export function specLocation(spec: string): URL {
  if (/^https?:\/\//i.test(spec) || spec.startsWith('file:')) {
    if (!URL.canParse(spec))
      throw new IsocodeError(
        'INVALID_CONFIG',
        `invalid OpenAPI document URL ${JSON.stringify(spec)}`,
      );
    return new URL(spec);
  }
  return pathToFileURL(isAbsolute(spec) ? spec : resolve(spec));
}

const fail = (where: string, message: string, cause?: unknown): IsocodeError =>
  new IsocodeError('INVALID_CONFIG', `OpenAPI document ${where}: ${message}`, {
    details: { spec: where },
    ...(cause === undefined ? {} : { cause }),
  });

/** The text of one read document, refused when it nests deeper than any JSON crossing a boundary. */
function checkedText(data: Buffer | string, where: string, maxBytes: number): string {
  const text = typeof data === 'string' ? data : data.toString('utf8');
  if (Buffer.byteLength(text) > maxBytes) throw fail(where, `larger than ${maxBytes} bytes`);
  if (jsonTooDeep(text)) throw fail(where, 'nests too deeply');
  return text;
}

/**
 * The resolver options: our own readers (bounded). The library reports a reader's failure as
 * "Error reading file" without the error, so each reader records its failure in `failures`.
 */
function refParserOptions(
  location: URL,
  options: LoadSpecOptions,
  signal: AbortSignal,
  failures: unknown[],
): ParserOptions {
  const fromFile = location.protocol === 'file:';
  const recorded =
    (read: (file: FileInfo) => Promise<string>) =>
    async (file: FileInfo): Promise<string> => {
      try {
        return await read(file);
      } catch (error) {
        failures.push(error);
        throw error;
      }
    };
  return {
    parse: { yaml: false, text: false, binary: false, json: { allowEmpty: false } },
    resolve: {
      external: true,
      file: fromFile && {
        // A file document may refer to files and URLs; a fetched one only to its own origin.
        read: recorded(async (file: FileInfo) =>
          checkedText(await readFileBounded(file, options.maxBytes), file.url, options.maxBytes),
        ),
      },
      http: {
        safeUrlResolver: false,
        canRead: (file: FileInfo) =>
          /^https?:\/\//i.test(file.url) &&
          URL.canParse(file.url) &&
          (fromFile || new URL(file.url).origin === location.origin),
        read: recorded(async (file: FileInfo) => {
          const data = await fetchDocument(new URL(file.url), options.maxBytes, signal);
          return checkedText(data, file.url, options.maxBytes);
        }),
      },
    },
    timeoutMs: options.timeoutMs,
  };
}

/**
 * A document file, read only when it is a regular file within the limit: a `$ref` to `/dev/zero`
 * grew the process without a bound, and one to a FIFO never returned. A path this reading cannot
 * open (the library decodes file URLs its own way) is left to the library's reader.
 */
async function readFileBounded(file: FileInfo, maxBytes: number): Promise<Buffer> {
  let path: string | undefined;
  try {
    path = file.url.startsWith('file:') ? fileURLToPath(file.url) : decodeURI(file.url);
  } catch {
    path = undefined;
  }
  const handle =
    path === undefined
      ? undefined
      : await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (path === undefined || handle === undefined) {
    const { FileResolver } = await import('@apidevtools/json-schema-ref-parser');
    return (FileResolver.read as (file: FileInfo) => Promise<Buffer>)(file);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw fail(path, 'is not a regular file');
    if (stat.size > maxBytes) throw fail(path, `larger than ${maxBytes} bytes`);
    // One byte more than its size: a file that grew since is refused, not read on.
    const buffer = Buffer.alloc(stat.size + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) throw fail(path, `larger than ${maxBytes} bytes`);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function messageOf(error: unknown): string {
  if (isIsocodeError(error)) return error.message;
  return thrownText(error);
}

/**
 * Reads and bundles an OpenAPI 3.0 or 3.1 document.
 * @throws IsocodeError INVALID_CONFIG when it cannot be read, is not JSON, has an unresolvable
 *   `$ref`, or is not an OpenAPI 3.0/3.1 document with a `paths` object.
 */
export async function loadSpec(spec: string, options: LoadSpecOptions): Promise<LoadedSpec> {
  const { bundle } = await importOptional(
    '@apidevtools/json-schema-ref-parser',
    () => import('@apidevtools/json-schema-ref-parser'),
  );
  const location = specLocation(spec);
  const where = location.protocol === 'file:' ? fileURLToPath(location) : location.href;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(fail(where, `not loaded within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  let bundled: unknown;
  const failures: unknown[] = [];
  try {
    const root: unknown =
      location.protocol === 'file:'
        ? undefined
        : JSON.parse(
            checkedText(
              await fetchDocument(location, options.maxBytes, controller.signal),
              where,
              options.maxBytes,
            ),
          );
    const opts = refParserOptions(location, options, controller.signal, failures);
    // The time limit holds even for a reader that never returns.
    bundled = await Promise.race([
      root === undefined ? bundle(where, opts) : bundle(where, root, opts),
      aborted(controller.signal),
    ]);
  } catch (error) {
    const reason: unknown = controller.signal.aborted
      ? controller.signal.reason
      : /^Error reading file/.test(messageOf(error)) && failures.length > 0
        ? failures[0]
        : error;
    const message = messageOf(reason);
    // Our own messages (a size or depth refusal, a failed fetch) come back wrapped by the resolver.
    if (/^(OpenAPI document|cannot fetch OpenAPI document) /.test(message))
      throw new IsocodeError('INVALID_CONFIG', message, {
        details: { spec: where },
        cause: reason,
      });
    throw fail(where, /ENOENT/.test(message) ? 'file not found' : message, reason);
  } finally {
    clearTimeout(timer);
  }
  if (!isRec(bundled)) throw fail(where, 'expected a JSON object');
  const version = bundled.openapi;
  if (typeof version !== 'string' || !/^3\.[01]\.\d+/.test(version)) {
    const got =
      typeof bundled.swagger === 'string'
        ? `Swagger ${bundled.swagger}`
        : JSON.stringify(version ?? null);
    throw fail(where, `expected "openapi": "3.0.x" or "3.1.x", got ${got}`);
  }
  if (bundled.paths !== undefined && !isRec(bundled.paths))
    throw fail(where, '"paths" must be an object');
  return { document: bundled, v30: version.startsWith('3.0'), location };
}
