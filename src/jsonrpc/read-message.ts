/**
 * The one rule by which isocode reads a JSON-RPC message it received, so that an odd one is never
 * silently lost (decision 005). The MCP SDK parses each message with its strict schema and drops
 * (stdio, SSE) or fails on (an HTTP JSON body) anything else: a response the schema refuses (a
 * `result` that is not an object, an extra top-level field, no `jsonrpc`) then never reached the
 * request waiting for it, and a request a peer spelled wrong got no answer. Read here:
 *
 * - a valid message is taken as the SDK would;
 * - a response with a usable id is always delivered to its request: as it is when its `result` is
 *   an object or its `error` has a code and a message (envelope noise — extra keys, a `method`, no
 *   `jsonrpc`, a `null` companion member — is dropped), else as an error response that says why it
 *   could not be read ({@link MALFORMED_RESPONSE_CODE}; {@link malformedResponseReason});
 * - a request or notification the schema refuses, and text that is not a JSON object, are
 *   unreadable (`-32600`, `-32700`): {@link answerUnreadable} answers them as JSON-RPC asks.
 *
 * Used by the stdio line reader (`line-buffer.ts`) and the HTTP answers of upstreams
 * (`src/sources/mcp-http-answers.ts`).
 */
import {
  JSONRPCMessageSchema,
  RequestIdSchema,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC's "internal error": the code of a response isocode could not read. */
export const MALFORMED_RESPONSE_CODE = -32603;
const MALFORMED_RESPONSE = 'malformed-response';

/** Text that is not a message: JSON-RPC's parse error (-32700) or invalid request (-32600). */
export interface UnreadableLine {
  code: -32700 | -32600;
  /** The request's id, when the text was a request with a usable one. */
  id: RequestId | undefined;
  reason: string;
  /** The text was a response (without a usable id): JSON-RPC answers no response. */
  response: boolean;
}

/** What a message's text or value holds: a message to deliver, or why it is not one. */
export type ReadMessage = { message: JSONRPCMessage } | { unreadable: UnreadableLine };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A member that says something: present and not null. */
const given = (value: unknown): boolean => value !== undefined && value !== null;

const refuse = (
  code: -32700 | -32600,
  reason: string,
  id?: RequestId,
  response = false,
): ReadMessage => ({ unreadable: { code, id, reason, response } });

/** Reads one message's text (a stdio line without its line feed; a leading BOM is ignored). */
export function readText(text: string): ReadMessage {
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return refuse(-32700, 'the text is not JSON');
  }
  return readValue(value);
}

/** Reads one parsed message (a line's JSON, an element of an HTTP body's batch). */
export function readValue(value: unknown): ReadMessage {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  if (!isObject(value)) return refuse(-32600, 'a JSON-RPC message is a JSON object');
  const id = RequestIdSchema.safeParse(value.id);
  // A result or an error makes it a response, whatever else it carries.
  if (given(value.result) || given(value.error) || !('method' in value)) {
    if (!id.success) return refuse(-32600, 'a response without a usable id', undefined, true);
    return { message: readResponse(id.data, value) };
  }
  return refuse(
    -32600,
    `not a valid JSON-RPC request or notification: ${requestProblem(value, id.success)}`,
    id.success ? id.data : undefined,
  );
}

/** What is wrong with a request or notification the schema refused. */
function requestProblem(value: Json, usableId: boolean): string {
  if (value.jsonrpc !== '2.0') return 'its "jsonrpc" is not "2.0"';
  if (typeof value.method !== 'string') return 'its "method" is not a string';
  if ('id' in value && !usableId) return 'its "id" is not a string or an integer';
  if ('params' in value && !isObject(value.params)) return 'its "params" is not an object';
  return 'its members do not match the request it names';
}

/** A response with a usable id, as one its request can take. */
function readResponse(id: RequestId, value: Json): JSONRPCMessage {
  // A null companion of the member that answers is noise (`"error": null` beside a result).
  const hasError = given(value.error) || ('error' in value && !('result' in value));
  const hasResult = 'result' in value && !(value.result === null && hasError);
  const { result, error } = value;
  if (!hasError && isObject(result)) return { jsonrpc: '2.0', id, result };
  if (
    !hasResult &&
    isObject(error) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string'
  ) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    return { jsonrpc: '2.0', id, error: { code, message, ...('data' in error ? { data } : {}) } };
  }
  const why =
    hasResult && hasError
      ? 'it has both a result and an error'
      : hasResult
        ? `its result is ${describe(result)}, not an object`
        : hasError
          ? 'its error is not an object with a numeric code and a message'
          : 'it has neither a result nor an error';
  return malformedResponse(id, why);
}

/** The error response that stands for an answer to request `id` that could not be read. */
export function malformedResponse(id: RequestId, why: string): JSONRPCMessage {
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

/** Why a response was unreadable, when `data` is the `error.data` of one made here. */
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

/**
 * The answer JSON-RPC asks for to unreadable text, given to `send`: a parse error or an invalid
 * request, with the request's id (`null` when it has no usable one); nothing for a response.
 */
export function answerUnreadable(
  send: (message: JSONRPCMessage) => Promise<void>,
): (line: UnreadableLine) => void {
  return ({ code, id, reason, response }) => {
    if (response) return;
    const error = { code, message: code === -32700 ? 'Parse error' : `Invalid Request: ${reason}` };
    // JSON-RPC's id of an answer to a request whose id could not be read is null.
    const answer = { jsonrpc: '2.0', id: id ?? null, error } as unknown as JSONRPCMessage;
    void send(answer).catch(() => undefined);
  };
}
