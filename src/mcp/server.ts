/**
 * The MCP server face of a runtime: `tools/list` is what the scope's model is shown (under `code`,
 * one `run_code` tool whose description carries the instructions and the SDK), and `tools/call`
 * goes through the runtime's full executor pipeline.
 */
import { anyParams, paramsOf } from './params.js';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SCOPE, RUN_CODE, type Runtime, type RunProgressEvent } from '../index.js';
import { durableOf, runDurably } from './durable-call.js';
import { elicitingApprover, supportsElicitation } from './elicit.js';
import { helperOverride, isHelperName, type HelperMode } from './helpers.js';
import { handleLogging } from './logging.js';
import type { LogLine } from '../run-code/types.js';
import { ERROR_META_KEY, toCallToolResult } from './result.js';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The runtime whose tools are served. Not closed by the server. */
  runtime: Runtime;
  /** The scope every call runs in. @default "default" */
  scope?: string | undefined;
  /** `serverInfo.name` in the initialize answer. @default "isocode" */
  name?: string | undefined;
  /** `serverInfo.version` in the initialize answer. @default "0.0.0" */
  version?: string | undefined;
  /**
   * The `search_tools`/`describe_tool` discovery helpers (code mode only): `auto` lists them, with a
   * compact run_code description, when the full description exceeds `helperThresholdTokens`.
   * @default the runtime's `codeMode.discovery` ("auto")
   */
  helpers?: HelperMode | undefined;
  /** The `auto` threshold, in o200k tokens of run_code description. @default the runtime's (16000) */
  helperThresholdTokens?: number | undefined;
  /**
   * Approvals by elicitation: when the connected client declared the `elicitation` capability,
   * the `ask`s of its tool calls (and of every nested call of its run_code programs) are put to
   * it with `elicitation/create` instead of the runtime's approver. Clients that are not asked
   * (all of them with `false`) keep the runtime's approver; on a durable runtime their run_code
   * programs run as durable runs, whose asks wait over HTTP (durable-call.ts). See
   * docs/decisions/024-mcp-elicitation.md.
   * @default true
   */
  elicitation?: boolean | undefined;
}

/** What the server lists for a scope, and whether helpers are on. */
interface Listing {
  tools: Tool[];
  helpers: boolean;
  withOutput: Set<string>;
}

const MAX_PROGRESS_TEXT = 500;

function progressMessage(event: RunProgressEvent): string {
  switch (event.type) {
    case 'typecheck':
      return event.ok
        ? `typecheck ok (${Math.round(event.ms)} ms)`
        : `typecheck failed (${event.diagnostics} diagnostics)`;
    case 'log': {
      const text = event.level === 'log' ? event.text : `[${event.level}] ${event.text}`;
      return text.length > MAX_PROGRESS_TEXT ? `${text.slice(0, MAX_PROGRESS_TEXT - 1)}…` : text;
    }
    case 'call-start':
      return `call ${event.name}`;
    case 'call-end':
      return event.ok
        ? `done ${event.name} (${Math.round(event.durationMs)} ms)`
        : `failed ${event.name}: ${event.code ?? 'error'}`;
  }
}

/**
 * Creates an MCP server (the SDK's low-level `Server`, so JSON Schemas pass through unchanged) over
 * a runtime's scope. Connect it to a transport with `server.connect(transport)`; {@link serveMcpStdio}
 * and {@link serveMcpHttp} do that for you.
 *
 * A `tools/call` request's cancellation (or its transport closing) aborts the call and, for
 * run_code, every nested call. With a `progressToken`, run_code progress (type-check, logs, nested
 * calls) is sent as `notifications/progress`. After `logging/setLevel`, a program's console output
 * at that level or above is sent as `notifications/message` (logging.ts). A client with the
 * `elicitation` capability is asked for the approvals of its calls (see `elicitation`).
 * @throws IsocodeError INVALID_SCOPE when the scope does not exist.
 */
export function createMcpServer(options: McpServerOptions): Server {
  return buildMcpServer(options).server;
}

/** A server and how many `tools/call` requests it is serving right now. */
export interface TrackedMcpServer {
  server: Server;
  /** `tools/call` requests in progress. */
  callsInFlight: () => number;
  /** When the last call started or ended (`Date.now()`), or when the server was built. */
  lastActive: () => number;
}

/** {@link createMcpServer}, plus the in-flight count the HTTP face's session table reads. */
export function buildMcpServer(options: McpServerOptions): TrackedMcpServer {
  const { runtime } = options;
  let calls = 0;
  let active = Date.now();
  const scope = options.scope ?? DEFAULT_SCOPE;
  const elicitation = options.elicitation ?? true;
  runtime.mode(scope); // throws INVALID_SCOPE for an unknown scope
  const override = helperOverride(options.helpers, options.helperThresholdTokens);
  runtime.discovery(scope, override); // throws INVALID_CONFIG for a bad setting

  // The runtime's listing: in compact mode, run_code's compact index and the two helpers.
  const listing = (): Listing => {
    const wire = runtime.wireTools('mcp', scope, override);
    return {
      tools: wire.map((t) => ({ ...t })) as Tool[],
      helpers: wire.some((t) => isHelperName(t.name)),
      withOutput: new Set(wire.filter((t) => t.outputSchema !== undefined).map((t) => t.name)),
    };
  };

  const codeOnly = runtime.systemPrompt(scope).find((s) => s.id === 'tools:code-only')?.text;
  const server = new Server(
    { name: options.name ?? 'isocode', version: options.version ?? '0.0.0' },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      ...(codeOnly ? { instructions: codeOnly } : {}),
    },
  );

  server.setRequestHandler(anyParams('tools/list'), (request) => {
    paramsOf(ListToolsRequestSchema.shape.params, 'tools/list', request.params);
    return { tools: listing().tools };
  });
  const logging = handleLogging(server);

  // When the runtime's catalog changes (an upstream server's list_changed), tell the client.
  const stopWatching = runtime.onToolsChanged(() => {
    server.sendToolListChanged().catch(() => {
      // not connected (yet, or any more): the next tools/list sees the new catalog anyway
    });
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    stopWatching();
    previousOnClose?.();
  };

  server.setRequestHandler(
    anyParams('tools/call'),
    async (request, extra): Promise<CallToolResult> => {
      const params = paramsOf(CallToolRequestSchema.shape.params, 'tools/call', request.params);
      const { name } = params;
      const args = params.arguments ?? {};
      const list = listing();
      // The runtime answers the helpers in any code-mode scope; this face only when it lists them.
      if (!list.helpers && isHelperName(name)) {
        const message = `unknown tool "${name}"`;
        return {
          isError: true,
          content: [{ type: 'text', text: `Error UNKNOWN_TOOL: ${message}` }],
          _meta: { [ERROR_META_KEY]: { code: 'UNKNOWN_TOOL', message } },
        };
      }

      calls += 1;
      active = Date.now();
      const callId = randomUUID();
      const token = params._meta?.progressToken;
      let progress = 0;
      const notify = (message: string): void => {
        if (token === undefined || extra.signal.aborted) return;
        progress += 1;
        const notification: ServerNotification = {
          method: 'notifications/progress',
          params: { progressToken: token, progress, message },
        };
        extra.sendNotification(notification).catch(() => {
          // the client may be gone; progress is best effort
        });
      };
      // Progress for a client that gave a token; log notifications for one that set a level.
      const sendLog = (line: LogLine): void => {
        const log = logging.notification(line);
        if (log === undefined || extra.signal.aborted) return;
        extra.sendNotification(log).catch(() => {
          // the client may be gone; logs are in the result anyway
        });
      };
      const unsubscribe = runtime.onProgress((id, event) => {
        if (id !== callId) return;
        if (token !== undefined) notify(progressMessage(event));
        if (event.type === 'log') sendLog(event);
      });
      // A client that can be asked is asked directly; the others keep the runtime's approver.
      const approver =
        elicitation && supportsElicitation(server)
          ? elicitingApprover(server, extra.requestId)
          : undefined;
      // On a durable runtime, the run_code program of a client that cannot be asked runs as a
      // durable run: its asks are parked, decided over HTTP by a human (durable-call.ts).
      const listsRunCode = name === RUN_CODE && list.tools.some((t) => t.name === RUN_CODE);
      const durable = approver === undefined && listsRunCode ? durableOf(runtime) : undefined;
      try {
        if (durable) {
          const answer = await runDurably(durable, args, {
            scope,
            signal: extra.signal,
            hasOutputSchema: list.withOutput.has(name),
            progress: token === undefined ? undefined : notify,
            log: sendLog,
          });
          if (answer) return answer;
        }
        const result = await runtime.execute(
          { name, args, id: callId },
          { scope, signal: extra.signal, approver },
        );
        return toCallToolResult(result, list.withOutput.has(name));
      } finally {
        unsubscribe();
        calls -= 1;
        active = Date.now();
      }
    },
  );

  return { server, callsInFlight: () => calls, lastActive: () => active };
}
