/**
 * Reading JSON-RPC messages so that an odd one is never silently lost: the one reader of stdio
 * lines for isocode's MCP client (upstream servers) and server (its stdio face), and the rule the
 * client's HTTP answers are read by (`mcp-http-answers.ts`). Decision 005.
 *
 * The SDK's own `ReadBuffer` parses each line with the strict message schema and throws on anything
 * else; its transports hand the throw to `onerror` and drop the line. A response the schema refuses
 * (a `result` that is not an object, an extra top-level field, no `jsonrpc`) then never reaches the
 * request waiting for it, which waits out its whole time limit; a request a client spelled wrong
 * gets no answer at all. This buffer reads every line itself:
 *
 * - a valid message is returned as the SDK would;
 * - a response with a usable id is always delivered to its request: as it is when its `result` is
 *   an object or its `error` has a code and a message (envelope noise such as extra keys or a missing
 *   `jsonrpc` is dropped), else as an error response that says why it could not be read
 *   ({@link MALFORMED_RESPONSE_CODE}, `data.isocode` = {@link MALFORMED_RESPONSE});
 * - a request or notification the schema refuses, and a line that is not a JSON object, are told to
 *   `onUnreadable` (the server face answers them, as JSON-RPC asks) and then thrown, as before;
 * - a message longer than the limit throws {@link MessageTooLargeError}, not the SDK's text.
 */
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  JSONRPCMessageSchema,
  RequestIdSchema,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** The SDK transports' limit on one message (10 MiB). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** JSON-RPC's "internal error": the code of a response isocode could not read. */
export const MALFORMED_RESPONSE_CODE = -32603;
/** `error.data.isocode` of a response that replaces one isocode could not read. */
export const MALFORMED_RESPONSE = 'malformed-response';

/** A message longer than the transport reads (the session cannot go on: its end was never read). */
export class MessageTooLargeError extends Error {
  /** The limit as people read it ("10 MiB"). */
  readonly limit: string;
  constructor(readonly limitBytes: number) {
    const limit =
      limitBytes % (1024 * 1024) === 0
        ? `${limitBytes / (1024 * 1024)} MiB`
        : `${limitBytes} bytes`;
    super(`a message over ${limit}`);
    this.name = 'MessageTooLargeError';
    this.limit = limit;
  }
}

/** A line that is not a message: JSON-RPC's parse error (-32700) or invalid request (-32600). */
export interface UnreadableLine {
  code: -32700 | -32600;
  /** The request's id, when the line was a request with a usable one. */
  id: RequestId | undefined;
  reason: string;
  /** The line was a response (without a usable id): JSON-RPC answers no response. */
  response: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const LF = 0x0a;

/** What one line holds: a message to deliver, or why it is not one. */
export type ReadLine = { message: JSONRPCMessage } | { unreadable: UnreadableLine };

const refuse = (
  code: -32700 | -32600,
  reason: string,
  id?: RequestId,
  response = false,
): ReadLine => ({ unreadable: { code, id, reason, response } });

/** Reads one line (without its line feed). */
export function readLine(line: string): ReadLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return refuse(-32700, 'the line is not JSON');
  }
  return readValue(value);
}

/** Reads one parsed message (a line's JSON, an element of an HTTP body's batch). */
export function readValue(value: unknown): ReadLine {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  if (!isObject(value)) return refuse(-32600, 'a JSON-RPC message is a JSON object');
  const id = RequestIdSchema.safeParse(value.id);
  if ('method' in value)
    return refuse(
      -32600,
      `not a valid JSON-RPC request or notification: ${firstIssue(parsed.error)}`,
      id.success ? id.data : undefined,
    );
  if (!id.success) return refuse(-32600, 'a response without a usable id', undefined, true);
  return { message: readResponse(id.data, value) };
}

/** A response with a usable id, as one its request can take. */
function readResponse(id: RequestId, value: Json): JSONRPCMessage {
  const { result, error } = value;
  if (!('error' in value) && isObject(result)) return { jsonrpc: '2.0', id, result };
  if (
    !('result' in value) &&
    isObject(error) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string'
  ) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    return { jsonrpc: '2.0', id, error: { code, message, ...('data' in error ? { data } : {}) } };
  }
  const why =
    'result' in value && 'error' in value
      ? 'it has both a result and an error'
      : 'result' in value
        ? `its result is ${describe(result)}, not an object`
        : 'error' in value
          ? 'its error is not an object with a numeric code and a message'
          : 'it has neither a result nor an error';
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: MALFORMED_RESPONSE_CODE,
      message: `the response could not be read: ${why}`,
      data: { isocode: MALFORMED_RESPONSE, reason: why },
    },
  };
}

/** Why a response was unreadable, when `data` is the `error.data` of one this buffer replaced. */
export function malformedResponseReason(data: unknown): string | undefined {
  return isObject(data) && data.isocode === MALFORMED_RESPONSE && typeof data.reason === 'string'
    ? data.reason
    : undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function firstIssue(error: { issues: ReadonlyArray<{ message: string }> }): string {
  return error.issues[0]?.message ?? 'it does not match the schema';
}

/** Options of {@link LineBuffer}. */
export interface LineBufferOptions {
  maxMessageBytes?: number | undefined;
  /** Told of a line that is not a message, before it is thrown to the transport's `onerror`. */
  onUnreadable?: ((line: UnreadableLine) => void) | undefined;
}

/** The SDK `ReadBuffer`'s interface (`append`, `readMessage`, `clear`), reading as described above. */
export class LineBuffer {
  #buffer: Buffer | undefined;
  readonly #max: number;
  readonly #onUnreadable: ((line: UnreadableLine) => void) | undefined;

  constructor(options: LineBufferOptions = {}) {
    this.#max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.#onUnreadable = options.onUnreadable;
  }

  append(chunk: Buffer): void {
    const size = (this.#buffer?.length ?? 0) + chunk.length;
    if (size > this.#max) {
      // Past the limit only when no line ends in what is held: whole lines are read as they come.
      this.clear();
      throw new MessageTooLargeError(this.#max);
    }
    this.#buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
  }

  readMessage(): JSONRPCMessage | null {
    const buffer = this.#buffer;
    if (buffer === undefined) return null;
    const end = buffer.indexOf(LF);
    if (end < 0) return null;
    const line = buffer.toString('utf8', 0, end).replace(/\r$/, '');
    this.#buffer = end + 1 === buffer.length ? undefined : buffer.subarray(end + 1);
    const read = readLine(line);
    if ('message' in read) return read.message;
    this.#onUnreadable?.(read.unreadable);
    throw new SyntaxError(`an unreadable JSON-RPC line: ${read.unreadable.reason}`);
  }

  clear(): void {
    this.#buffer = undefined;
  }
}

/**
 * Puts `buffer` in place of an SDK stdio transport's own reader (`StdioClientTransport`,
 * `StdioServerTransport`: both read through a `ReadBuffer` they keep as `_readBuffer`). Returns false,
 * changing nothing, when the transport has no such reader (another SDK version: the tests of both
 * faces fail then).
 */
export function useLineBuffer(transport: object, buffer: LineBuffer): boolean {
  const holder = transport as { _readBuffer?: unknown };
  if (!(holder._readBuffer instanceof ReadBuffer)) return false;
  holder._readBuffer = buffer;
  return true;
}
