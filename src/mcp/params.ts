/**
 * Requests whose params the handler checks itself. The SDK's own request schemas fail their parse
 * with -32603 (internal error) and a zod dump as the message; a client that sent wrong params is
 * told -32602 (invalid params), as JSON-RPC says, with the first issue in one bounded line.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { clipVisible } from '../text/visible.js';

/** A request of `method` with any params (for `setRequestHandler`); check them with {@link paramsOf}. */
export function anyParams<M extends string>(method: M) {
  return z.object({ method: z.literal(method), params: z.unknown().optional() });
}

/** A schema's parse of `params`. @throws McpError InvalidParams (-32602) naming the first issue. */
export function paramsOf<T>(
  schema: {
    safeParse(value: unknown):
      | { success: true; data: T }
      | {
          success: false;
          error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
        };
  },
  method: string,
  params: unknown,
): T {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'params';
  throw new McpError(
    ErrorCode.InvalidParams,
    clipVisible(`${method}: ${where}: ${issue?.message ?? 'invalid params'}`, 300),
  );
}
