/**
 * Approvals by MCP elicitation: when the connected client declared the `elicitation` capability
 * (form mode), a tool call made through the MCP face gets a per-call approver that asks that
 * client's human with `elicitation/create`. The executor stays the one owner of the approval's
 * bounds: it gives the approver a signal that aborts on the call's cancellation or on the
 * runtime's approval time-out, and the elicitation is aborted with it (the client is sent
 * `notifications/cancelled`). The SDK's own 60 s request time-out is lifted for this request.
 * See docs/decisions/024-mcp-elicitation.md.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type {
  ElicitRequestFormParams,
  ElicitResult,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalOutcome, ApprovalRequest, Approver } from '../executor/approval.js';
import { clipVisible, visible, visibleJson } from '../text/visible.js';

/** At most this many characters of the arguments' JSON are shown. */
export const MAX_SHOWN_ARGS = 1_000;
/** At most this many characters of the hooks' reasons are shown. */
export const MAX_SHOWN_REASON = 1_000;
/** The most characters of the client's own name recorded as who decided. */
const MAX_CLIENT_NAME = 100;
/**
 * The SDK's request time-out for an elicitation: the largest a Node timer takes (~24.8 days), so
 * in practice only the executor's approval time-out bounds the human's wait.
 */
export const ELICITATION_REQUEST_TIMEOUT_MS = 2_147_483_647;

/** The form the client shows: one required yes/no. */
export const APPROVAL_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    approve: {
      type: 'boolean',
      title: 'Approve',
      description: 'Run this tool call once',
    },
  },
  required: ['approve'],
};

/** The message the human reads: the tool, the reason the hooks gave, the arguments they saw. */
/**
 * Everything of the call is shown through the visible-text rule (decision 028): a control, bidi or
 * invisible character of the name, a reason or the arguments is written as an escape (`\u202E`),
 * so nothing can reorder, hide or break up what the human reads, and nothing is silently dropped
 * (`invoice-\u202Efdp.exe` is not shown as the different name `invoice-fdp.exe`). One line each.
 */
export function approvalMessage(request: ApprovalRequest): string {
  const name = visible(request.name, 'line');
  const reasons = request.messages.map((m) => m.trim()).filter((m) => m.length > 0);
  let args: string;
  try {
    args = visibleJson(request.args) ?? 'null';
  } catch {
    args = '(not shown)';
  }
  const reason = visible(reasons.join(' / '), 'line');
  const lines = [
    `Approve a call of the tool "${name}"${request.parentId === undefined ? '' : ' (from a run_code program)'}?`,
    `Reason: ${reasons.length > 0 ? clipVisible(reason, MAX_SHOWN_REASON) : '(none given)'}`,
    `Arguments: ${clipVisible(args, MAX_SHOWN_ARGS)}`,
  ];
  return lines.join('\n');
}

/** The executor's outcome of a client's answer; anything unexpected fails closed. */
export function outcomeOf(result: ElicitResult): ApprovalOutcome {
  switch (result.action) {
    case 'accept': {
      const approve = result.content?.['approve'];
      if (approve === true) return 'allowed-once';
      if (approve === false) return 'rejected';
      return 'unavailable';
    }
    case 'decline':
      return 'rejected';
    case 'cancel':
      return 'cancelled';
    default:
      return 'unavailable';
  }
}

/** True when the connected client declared form elicitation (`elicitation: {}` counts as form). */
export function supportsElicitation(server: Server): boolean {
  return server.getClientCapabilities()?.elicitation?.form !== undefined;
}

/** The client's name as it announced itself, escaped and capped; `client` when it gave none. */
function clientName(server: Pick<Server, 'getClientVersion'>): string {
  let name: unknown;
  try {
    name = server.getClientVersion()?.name;
  } catch {
    // a server without the handshake's record: no name
  }
  const shown =
    typeof name === 'string' ? clipVisible(visible(name.trim(), 'line'), MAX_CLIENT_NAME) : '';
  return shown.length > 0 ? shown : 'client';
}

/**
 * An approver that asks the client of `server` through `elicitation/create`, sent as related to
 * the `tools/call` request `relatedRequestId` (so over streamable HTTP it travels on that call's
 * stream). A transport error, a disconnect or an answer that does not fit the form resolves
 * `unavailable`: fail closed.
 */
export function elicitingApprover(server: Server, relatedRequestId: RequestId): Approver {
  return async (request, signal) => {
    // Who decided, for the audit's approval/decided record: the client as it named itself
    // (hostile text: escaped and capped like everything the elicitation shows).
    const decidedBy = `mcp-elicitation:${clientName(server)}`;
    try {
      const result = await server.elicitInput(
        { mode: 'form', message: approvalMessage(request), requestedSchema: APPROVAL_SCHEMA },
        { signal, timeout: ELICITATION_REQUEST_TIMEOUT_MS, relatedRequestId },
      );
      const outcome = outcomeOf(result);
      return outcome === 'unavailable' ? outcome : { outcome, decidedBy };
    } catch {
      return 'unavailable';
    }
  };
}
