/**
 * MCP logging (`logging/setLevel`, `notifications/message`): a run_code program's console output
 * sent to the client that ran it, at the console method's level (decision record 033).
 *
 * Opt-in: a client is sent log notifications only after it set a level, and then those at that
 * level or above. The logs are in the call's result anyway; a client that asks for them gets them
 * as they happen, on the stream of its `tools/call`.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  LoggingLevelSchema,
  McpError,
  type LoggingLevel,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { anyParams } from './params.js';
import type { LogLine } from '../run-code/types.js';
import { clipVisible, visible } from '../text/visible.js';

/** The `logger` name of a program's log notifications. */
export const PROGRAM_LOGGER = 'run_code';
/** Longest `data` of one log notification, in characters (the run's log cap bounds the total). */
const MAX_LOG_TEXT = 4000;

const SEVERITY: ReadonlyMap<string, number> = new Map(
  LoggingLevelSchema.options.map((level, index) => [level, index]),
);

/**
 * `logging/setLevel` with any params: the level is checked by the handler, so a wrong one is
 * answered -32602 (invalid params) as JSON-RPC says, not -32603 from a failed schema parse.
 */
const SetLevelRequest = anyParams('logging/setLevel');

/** The MCP level of a console method: `log` is `info`, `warn` is `warning`. */
export function mcpLevelOf(level: LogLine['level']): LoggingLevel {
  switch (level) {
    case 'debug':
      return 'debug';
    case 'log':
    case 'info':
      return 'info';
    case 'warn':
      return 'warning';
    case 'error':
      return 'error';
  }
}

/** One server's (so one session's) log level. */
export interface ClientLogging {
  /** The log notification of a program's console line, or undefined when the client did not ask for it. */
  notification(line: LogLine): ServerNotification | undefined;
}

/**
 * Answers `logging/setLevel` on `server` (which must declare the `logging` capability) and keeps
 * the level: one server serves one client (stdio, or one stateful HTTP session).
 */
export function handleLogging(server: Server): ClientLogging {
  let threshold: number | undefined;
  server.setRequestHandler(SetLevelRequest, (request) => {
    const level: unknown =
      typeof request.params === 'object' && request.params !== null
        ? (request.params as { level?: unknown }).level
        : undefined;
    const severity = typeof level === 'string' ? SEVERITY.get(level) : undefined;
    if (severity === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `logging/setLevel: level must be one of ${LoggingLevelSchema.options.join(', ')}`,
      );
    threshold = severity;
    return {};
  });
  return {
    notification(line) {
      const level = mcpLevelOf(line.level);
      if (threshold === undefined || (SEVERITY.get(level) ?? 0) < threshold) return undefined;
      return {
        method: 'notifications/message',
        params: {
          level,
          logger: PROGRAM_LOGGER,
          data: clipVisible(visible(line.text), MAX_LOG_TEXT),
        },
      };
    },
  };
}
