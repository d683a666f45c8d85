/**
 * Reading newline-delimited JSON-RPC (MCP's stdio framing) by isocode's rule (`read-message.ts`):
 * the reader of isocode's MCP client for upstream servers and of its own stdio face, put in place of
 * the SDK's `ReadBuffer` (decision 005). A line the rule cannot read is told to `onUnreadable`, then
 * thrown to the transport's `onerror` as the SDK's reader did; a blank line is skipped; a line
 * longer than the limit, whole or not yet ended, throws {@link MessageTooLargeError} from `append`
 * (which ends the session, as the SDK's reader's error did; not the SDK's text).
 */
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readText, type UnreadableLine } from './read-message.js';

/** The SDK transports' limit on one message (10 MiB). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const LF = 0x0a;

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

/** Options of {@link LineBuffer}. */
export interface LineBufferOptions {
  maxMessageBytes?: number | undefined;
  /** Told of a line that is not a message, before it is thrown to the transport's `onerror`. */
  onUnreadable?: ((line: UnreadableLine) => void) | undefined;
}

/** The SDK `ReadBuffer`'s interface (`append`, `readMessage`, `clear`), reading as described above. */
export class LineBuffer {
  /** Complete lines, then the start of the next one (from the last chunk that ended a line). */
  #buffer: Buffer | undefined;
  /**
   * The chunks of a line still being received, none holding a line feed: joined once, when the line
   * ends (joining at every chunk copied a long line over and over).
   */
  #parts: Buffer[] = [];
  /** Bytes held after the last line feed: the line still being received. */
  #tail = 0;
  readonly #max: number;
  readonly #onUnreadable: ((line: UnreadableLine) => void) | undefined;

  constructor(options: LineBufferOptions = {}) {
    this.#max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.#onUnreadable = options.onUnreadable;
  }

  append(chunk: Buffer): void {
    // The limit bounds each line, not what one chunk carries.
    let line = this.#tail;
    let from = 0;
    for (let lf = chunk.indexOf(LF); lf >= 0; lf = chunk.indexOf(LF, from)) {
      if (line + lf - from > this.#max) this.#tooLarge();
      line = 0;
      from = lf + 1;
    }
    const tail = line + chunk.length - from;
    if (tail > this.#max) this.#tooLarge();
    this.#tail = tail;
    if (from === 0) {
      this.#parts.push(chunk);
      return;
    }
    const pieces = this.#buffer === undefined ? this.#parts : [this.#buffer, ...this.#parts];
    this.#buffer = pieces.length === 0 ? chunk : Buffer.concat([...pieces, chunk]);
    this.#parts = [];
  }

  #tooLarge(): never {
    this.clear();
    throw new MessageTooLargeError(this.#max);
  }

  readMessage(): JSONRPCMessage | null {
    for (;;) {
      const buffer = this.#buffer;
      if (buffer === undefined) return null;
      const end = buffer.indexOf(LF);
      if (end < 0) return null;
      const line = buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.#buffer = end + 1 === buffer.length ? undefined : buffer.subarray(end + 1);
      if (line.trim() === '') continue;
      const read = readText(line);
      if ('message' in read) return read.message;
      this.#onUnreadable?.(read.unreadable);
      throw new SyntaxError(`an unreadable JSON-RPC line: ${read.unreadable.reason}`);
    }
  }

  clear(): void {
    this.#buffer = undefined;
    this.#parts = [];
    this.#tail = 0;
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
