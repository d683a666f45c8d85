/** Serving a runtime's scope as an MCP server over stdio. */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { LineBuffer, MessageTooLargeError, useLineBuffer } from '../jsonrpc/line-buffer.js';
import { answerUnreadable } from '../jsonrpc/read-message.js';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Options of {@link serveMcpStdio}. */
export interface McpStdioOptions extends McpServerOptions {
  /** Where requests are read. @default process.stdin */
  stdin?: Readable | undefined;
  /** Where responses are written; nothing else may write to it. @default process.stdout */
  stdout?: Writable | undefined;
}

/** A running stdio MCP server. */
export interface McpStdioHandle {
  /** Resolves when the session ends: the client closed stdin, or `close()` was called. */
  readonly closed: Promise<void>;
  /** Closes the session; in-flight calls are aborted. Does not close the runtime. Idempotent. */
  close(): Promise<void>;
  /**
   * Why the session ended on its own, when the channel failed rather than the client leaving: a
   * message over the 10 MiB the transport reads ends the session (its request cannot be answered:
   * it was never read whole). Undefined after a clean end.
   */
  failure(): string | undefined;
}

/**
 * Serves the runtime's scope over stdio (newline-delimited JSON-RPC). Only protocol messages are
 * written to `stdout`: log elsewhere (stderr). The session ends when stdin ends.
 */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioHandle> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const server = createMcpServer(options);
  const transport = new StdioServerTransport(stdin, stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  server.onclose = () => resolveClosed();
  // A line that is not a message is answered, as JSON-RPC asks (a parse error, an invalid request;
  // with the request's id, or null); a response the client spelled wrong still reaches the request
  // that waits for it (decision 008).
  useLineBuffer(
    transport,
    new LineBuffer({ onUnreadable: answerUnreadable((message) => transport.send(message)) }),
  );
  // The transport reports a message it could not read (over its buffer), then closes itself.
  let failure: string | undefined;
  transport.onerror = (error) => {
    if (error instanceof MessageTooLargeError)
      failure ??= `a message over the ${error.limit} an MCP stdio message may have ended the session`;
  };

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      await server.close();
      resolveClosed();
    })());
  const onEnd = (): void => {
    void close();
  };
  stdin.on('end', onEnd);
  stdin.on('close', onEnd);
  await server.connect(transport); // (the server's own handler runs after ours)
  return { closed, close, failure: () => failure };
}
