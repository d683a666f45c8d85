/**
 * One upstream MCP server connection with reconnect-on-next-call: a session is opened lazily
 * after a loss, with exponential backoff between failed attempts, and calls fail fast with
 * UPSTREAM_UNAVAILABLE while the backoff is long.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type {
  jsonSchemaValidator,
  JsonSchemaValidatorResult,
} from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import { IsocodeError, isIsocodeError } from '../index.js';
import { stderrTailForMessage } from './child-process.js';
import { abortError, listAllTools, raceAbort, sleep, stopChild, waitForExit } from './mcp-waits.js';
import { MessageTooLargeError } from '../jsonrpc/line-buffer.js';
import { createUpstreamTransport, transportKind } from './mcp-transport.js';
import { descendantsOf, endLeftovers } from './process-tree.js';
import type { ToolList } from './mcp-waits.js';
import { classifyCallError, messageOf, unavailableError } from './mcp-result.js';
import type { McpConnectionStatus, McpReconnectOptions, McpServerOptions } from './mcp-options.js';

export type * from './mcp-options.js';

interface Session {
  client: Client;
  transport: Transport;
  pid: number | undefined;
  tools: ToolList;
  /** The client's connection closed (its `onclose`, which the SDK calls before failing its calls). */
  closed: boolean;
}

const CLIENT_INFO = { name: 'isocode', version: '0.1.0' };

/** A `tools/call` result as any object (see `callTool`). */
const CALL_RESULT = z.looseObject({});
/** setTimeout's ceiling: the SDK's own per-request timeout is disabled; callers' signals and the runtime's timeouts govern. */
const NO_SDK_TIMEOUT = 2_147_483_647;
const STDERR_TAIL_CHARS = 8192;
const FATAL_HTTP_ERROR =
  /SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts/;

/** Options of {@link McpConnection}. */
export interface McpConnectionOptions {
  name: string;
  server: McpServerOptions;
  connectTimeoutMs: number;
  reconnect: McpReconnectOptions;
  /** Called with the new upstream catalog after a list_changed refresh or a reconnection that changed it. */
  onCatalog: (tools: ToolList) => void;
}

/**
 * The SDK client's own output validation, switched off: it compiled every tool's `outputSchema` with
 * a second ajv at each `tools/list` (one schema it could not compile failed the whole list, so the
 * server read as unreachable) and validated each result again. The source compiles each schema once
 * and leaves out a tool whose schema fails (`compileAhead`); the executor validates every result
 * against it (`INVALID_TOOL_OUTPUT`). The client still requires structured content of a tool with an
 * output schema.
 */
const NO_SECOND_VALIDATOR: jsonSchemaValidator = {
  getValidator:
    <T>() =>
    (input: unknown): JsonSchemaValidatorResult<T> => ({
      valid: true,
      data: input as T,
      errorMessage: undefined,
    }),
};

/** A managed connection to one upstream MCP server. */
export class McpConnection {
  readonly #o: McpConnectionOptions;
  #session: Session | undefined;
  #connecting: Promise<Session> | undefined;
  #closing: Promise<void> | undefined;
  #failures = 0;
  #lastFailureAt = 0;
  #lastError: string | undefined;
  #reconnects = 0;
  #opened = 0;
  #serverInfo: { name: string; version: string } | undefined;
  #stderrTail = '';
  #catalogJson = '';

  constructor(options: McpConnectionOptions) {
    this.#o = options;
  }

  /**
   * Opens the first session. @returns the upstream catalog.
   * @throws UPSTREAM_UNAVAILABLE, with the tail of a captured stderr (for the operator: a
   * first-connection failure is a startup error, never shown to a model).
   */
  async start(): Promise<ToolList> {
    try {
      const session = await this.#ensure(undefined);
      return session.tools;
    } catch (error) {
      if (!isIsocodeError(error)) throw error;
      const captured =
        'command' in this.#o.server && (this.#o.server.stderr ?? 'capture') === 'capture';
      if (!captured) throw error;
      const tail = stderrTailForMessage(this.#stderrTail);
      throw new IsocodeError(
        error.code,
        `${error.message} (${tail === '' ? 'it wrote nothing to stderr' : `stderr: ${tail}`})`,
        {
          details: { ...error.details, ...(tail === '' ? {} : { stderrTail: tail }) },
          cause: error,
        },
      );
    }
  }

  /** Forwards one `tools/call`. Errors are mapped (see mcp-result.ts); a lost connection is UPSTREAM_UNAVAILABLE. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (signal.aborted) throw abortError(signal);
    const session = await this.#ensure(signal);
    try {
      // Read as any object: mapCallResult reads it field by field (an unknown content kind is a
      // text note there); the SDK's own result schema failed the whole call on one odd block.
      const result = await session.client.request(
        { method: 'tools/call', params: { name: tool, arguments: args } },
        CALL_RESULT,
        { signal, timeout: NO_SDK_TIMEOUT },
      );
      this.#failures = 0;
      return result;
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      const classified = classifyCallError(error, {
        source: this.#o.name,
        tool,
        connectionOpen: !session.closed,
      });
      if (classified.unavailable) {
        // When the loss was already seen (process exit, stream error), its reason is the better one.
        const reason =
          this.#session === session ? classified.reason : (this.#lastError ?? classified.reason);
        this.#lost(session, reason);
        throw unavailableError(this.#o.name, reason, error);
      }
      this.#failures = 0; // the upstream answered
      throw classified.error;
    }
  }

  status(): McpConnectionStatus {
    const state = this.#closing
      ? 'closed'
      : this.#session
        ? 'connected'
        : this.#connecting
          ? 'connecting'
          : 'disconnected';
    return {
      transport: transportKind(this.#o.server),
      state,
      server: this.#serverInfo,
      pid: this.#session?.pid,
      reconnects: this.#reconnects,
      consecutiveFailures: this.#failures,
      lastError: this.#lastError,
      nextAttemptInMs: this.#session ? 0 : this.#backoffRemaining(),
      stderrTail: this.#stderrTail === '' ? undefined : this.#stderrTail,
    };
  }

  /** Closes the session and any child process; later calls fail with UPSTREAM_UNAVAILABLE. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const pending = this.#connecting;
      if (pending)
        await pending.then(
          () => undefined,
          () => undefined,
        );
      const session = this.#session;
      this.#session = undefined;
      if (session) await this.#dispose(session, true);
    })();
    return this.#closing;
  }

  #delay(failures: number): number {
    if (failures <= 0) return 0;
    const initial = this.#o.reconnect.initialDelayMs ?? 200;
    const max = this.#o.reconnect.maxDelayMs ?? 30_000;
    return Math.min(initial * 2 ** (failures - 1), max);
  }

  #backoffRemaining(): number {
    return Math.max(0, this.#lastFailureAt + this.#delay(this.#failures) - Date.now());
  }

  #recordFailure(reason: string): void {
    this.#failures++;
    this.#lastFailureAt = Date.now();
    this.#lastError = reason;
  }

  async #ensure(signal: AbortSignal | undefined): Promise<Session> {
    if (this.#closing) throw unavailableError(this.#o.name, 'the source is closed');
    if (this.#session) return this.#session;
    if (!this.#connecting) {
      const wait = this.#backoffRemaining();
      if (wait > (this.#o.reconnect.maxWaitMs ?? 1000)) {
        throw unavailableError(
          this.#o.name,
          `${this.#lastError ?? 'not connected'}; next reconnection attempt in ${Math.ceil(wait / 100) / 10} s`,
        );
      }
      const attempt = (async (): Promise<Session> => {
        if (wait > 0) await sleep(wait);
        return this.#connect();
      })();
      this.#connecting = attempt;
      attempt.then(
        () => {
          if (this.#connecting === attempt) this.#connecting = undefined;
        },
        () => {
          if (this.#connecting === attempt) this.#connecting = undefined;
        },
      );
    }
    return raceAbort(this.#connecting, signal);
  }

  async #connect(): Promise<Session> {
    if (this.#closing) throw unavailableError(this.#o.name, 'the source is closed');
    let session: Session;
    try {
      session = await this.#open();
    } catch (error) {
      const reason = messageOf(error);
      this.#recordFailure(reason);
      throw unavailableError(this.#o.name, reason, error);
    }
    if (this.#closing) {
      await this.#dispose(session, true);
      throw unavailableError(this.#o.name, 'the source is closed');
    }
    this.#session = session;
    if (this.#opened++ > 0) this.#reconnects++;
    this.#setCatalog(session.tools);
    return session;
  }

  async #open(): Promise<Session> {
    const transport = createUpstreamTransport(this.#o.server, (text) => {
      this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    let session: Session | undefined;
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      jsonSchemaValidator: NO_SECOND_VALIDATOR,
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 50, onChanged: () => void this.#refresh(client) },
      },
    });
    const isStdio = transport instanceof StdioClientTransport;
    // Why the transport closed itself, when it says: the SDK then ends the child.
    let ended: string | undefined;
    client.onclose = () => {
      if (session) session.closed = true;
      if (session)
        this.#lost(
          session,
          ended ?? (isStdio ? 'the server process exited' : 'the connection closed'),
        );
    };
    client.onerror = (error: Error) => {
      if (error instanceof MessageTooLargeError)
        ended ??= `the server sent a message over the ${error.limit} a stdio message may have`;
      const message = messageOf(error);
      if (
        session &&
        transport instanceof StreamableHTTPClientTransport &&
        FATAL_HTTP_ERROR.test(message)
      )
        this.#lost(session, message);
    };
    let stage = 'initialize';
    // The child is spawned synchronously by connect(); its pid is read before a failed connect's
    // own close forgets it.
    let spawned: number | undefined;
    try {
      const connecting = client.connect(transport, { timeout: this.#o.connectTimeoutMs });
      spawned = isStdio ? (transport.pid ?? undefined) : undefined;
      await connecting;
      stage = 'tools/list';
      const tools = await listAllTools(client, this.#o.connectTimeoutMs);
      const info = client.getServerVersion();
      if (info) this.#serverInfo = { name: info.name, version: info.version };
      session = {
        client,
        transport,
        pid: isStdio ? (transport.pid ?? undefined) : undefined,
        tools,
        closed: false,
      };
      return session;
    } catch (error) {
      const pid = spawned ?? (isStdio ? (transport.pid ?? undefined) : undefined);
      const tree = pid === undefined ? [] : await descendantsOf(pid);
      await client.close().catch(() => undefined);
      if (pid !== undefined && !(await waitForExit(pid, 500))) await stopChild(pid);
      await endLeftovers(tree);
      if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number))
        throw new Error(`no answer to ${stage} within ${this.#o.connectTimeoutMs} ms`, {
          cause: error,
        });
      throw error;
    }
  }

  /** Drops a session that failed (once), and releases it in the background. */
  #lost(session: Session, reason: string): void {
    if (this.#session !== session) return;
    this.#session = undefined;
    this.#recordFailure(reason);
    void this.#dispose(session, false);
  }

  async #dispose(session: Session, graceful: boolean): Promise<void> {
    const { client, transport, pid } = session;
    // Read before the child is ended: a launcher's children are reparented once it exits.
    const tree = pid === undefined ? [] : await descendantsOf(pid);
    if (
      graceful &&
      transport instanceof StreamableHTTPClientTransport &&
      transport.sessionId !== undefined
    ) {
      await Promise.race([transport.terminateSession().catch(() => undefined), sleep(1000)]);
    }
    await client.close().catch(() => undefined);
    if (pid !== undefined) await waitForExit(pid, 3000);
    await endLeftovers(tree);
  }

  async #refresh(client: Client): Promise<void> {
    const session = this.#session;
    if (!session || session.client !== client) return;
    try {
      session.tools = await listAllTools(client, this.#o.connectTimeoutMs);
      if (this.#session === session) this.#setCatalog(session.tools);
    } catch (error) {
      this.#lastError = `tools/list after list_changed failed: ${messageOf(error)}`;
    }
  }

  #setCatalog(tools: ToolList): void {
    const json = `${catalogText(tools.tools)}\n${JSON.stringify(tools.malformed)}`;
    if (json === this.#catalogJson) return;
    const first = this.#catalogJson === '';
    this.#catalogJson = json;
    if (!first) this.#o.onCatalog(tools);
  }
}

/**
 * The tool list as JSON, to tell a changed list from the same one. Its entries are bounded in depth
 * and size (`listAllTools`); a tool JSON still cannot write (a BigInt an in-process upstream handed
 * over) stands as its name.
 */
function catalogText(tools: Tool[]): string {
  try {
    return JSON.stringify(tools);
  } catch {
    return JSON.stringify(
      tools.map((tool) => {
        try {
          return JSON.stringify(tool);
        } catch {
          return tool.name;
        }
      }),
    );
  }
}
