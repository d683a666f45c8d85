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
 * How asks are gathered into one form: the form is sent once no further ask arrived for
 * `GATHER_QUIET_MS`, and at the latest `GATHER_MAX_MS` after its first ask (decision 024, "Batches").
 * Invisible to a person; a lone ask waits `GATHER_QUIET_MS`.
 */
export const GATHER_QUIET_MS = 40;
export const GATHER_MAX_MS = 400;

/** At most this many calls share one form; a larger batch is asked in several forms. */
export const MAX_CALLS_PER_FORM = 20;

/** The form of a batch: one required yes/no per call, `approve_1` … `approve_n`. */
export function batchSchema(
  requests: readonly ApprovalRequest[],
): ElicitRequestFormParams['requestedSchema'] {
  const properties: Record<string, { type: 'boolean'; title: string; description: string }> = {};
  requests.forEach((request, i) => {
    properties[`approve_${i + 1}`] = {
      type: 'boolean',
      title: clipVisible(`Approve call ${i + 1}: ${visible(request.name, 'line')}`, 200),
      description: 'Run this tool call once',
    };
  });
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** The message of a batch: a heading, then each call's three lines, numbered as in the form. */
export function batchMessage(requests: readonly ApprovalRequest[]): string {
  const fromProgram = requests.some((r) => r.parentId !== undefined);
  return [
    `Approve ${requests.length} tool calls${fromProgram ? ' from a run_code program' : ''}? Each is decided on its own; approved calls run one at a time, in this order.`,
    ...requests.map((request, i) =>
      approvalMessage(request)
        .split('\n')
        .map((line, j) => (j === 0 ? `${i + 1}. ${line}` : `   ${line}`))
        .join('\n'),
    ),
  ].join('\n');
}

/** The outcome of call `index` (0-based) of a batch from the client's answer; unexpected fails closed. */
export function batchOutcomeOf(result: ElicitResult, index: number): ApprovalOutcome {
  if (result.action !== 'accept') return outcomeOf(result);
  const approve = result.content?.[`approve_${index + 1}`];
  return approve === true ? 'allowed-once' : approve === false ? 'rejected' : 'unavailable';
}

interface Ask {
  request: ApprovalRequest;
  signal: AbortSignal;
  resolve(answer: ApprovalOutcome | { outcome: ApprovalOutcome; decidedBy: string }): void;
}

/**
 * An approver that asks the client of `server` through `elicitation/create`, sent as related to
 * the `tools/call` request `relatedRequestId` (so over streamable HTTP it travels on that call's
 * stream). A transport error, a disconnect or an answer that does not fit the form resolves
 * `unavailable`: fail closed.
 *
 * The asks a program makes together (a `Promise.all`: decision 027 puts them in flight together)
 * reach this approver close together; those gathered (see {@link GATHER_QUIET_MS}) are sent as **one** form with a
 * yes/no per call (up to {@link MAX_CALLS_PER_FORM}), each still decided on its own. A lone ask gets
 * the one-question form. An aborted call drops out of its form at once (`cancelled`); the form is
 * withdrawn (`notifications/cancelled`) when every call in it was aborted.
 */
export function elicitingApprover(server: Server, relatedRequestId: RequestId): Approver {
  let gathering: Ask[] | undefined;
  const send = (asks: Ask[]): void => {
    const live = asks.filter((a) => !a.signal.aborted);
    for (const a of asks) if (a.signal.aborted) a.resolve('cancelled');
    for (let i = 0; i < live.length; i += MAX_CALLS_PER_FORM)
      void ask(live.slice(i, i + MAX_CALLS_PER_FORM));
  };
  const ask = async (asks: Ask[]): Promise<void> => {
    // Who decided, for the audit's approval/decided record: the client as it named itself
    // (hostile text: escaped and capped like everything the elicitation shows).
    const decidedBy = `mcp-elicitation:${clientName(server)}`;
    const withdrawn = new AbortController();
    let left = asks.length;
    for (const a of asks)
      a.signal.addEventListener(
        'abort',
        () => {
          a.resolve('cancelled');
          if (--left === 0) withdrawn.abort(a.signal.reason);
        },
        { once: true },
      );
    const single = asks.length === 1 ? asks[0] : undefined;
    const requests = asks.map((a) => a.request);
    try {
      const result = await server.elicitInput(
        single
          ? {
              mode: 'form',
              message: approvalMessage(single.request),
              requestedSchema: APPROVAL_SCHEMA,
            }
          : {
              mode: 'form',
              message: batchMessage(requests),
              requestedSchema: batchSchema(requests),
            },
        {
          signal: single ? single.signal : withdrawn.signal,
          timeout: ELICITATION_REQUEST_TIMEOUT_MS,
          relatedRequestId,
        },
      );
      asks.forEach((a, i) => {
        const outcome = single ? outcomeOf(result) : batchOutcomeOf(result, i);
        a.resolve(outcome === 'unavailable' ? outcome : { outcome, decidedBy });
      });
    } catch {
      for (const a of asks) a.resolve('unavailable');
    }
  };
  return (request, signal) =>
    new Promise((resolve) => {
      let settled = false;
      const once: Ask['resolve'] = (answer) => {
        if (settled) return;
        settled = true;
        resolve(answer);
      };
      if (gathering === undefined) {
        const batch: Ask[] = [];
        const first = Date.now();
        gathering = batch;
        // Asks issued together reach the approver close together but not in one turn of the event
        // loop (the sandbox sends a batch's calls as the isolate makes them, and a loaded host
        // reads them in several frames): the form goes out once no ask came for GATHER_QUIET_MS,
        // at most GATHER_MAX_MS after the first.
        const close = (): void => {
          gathering = undefined;
          send(batch);
        };
        let seen = 1; // the ask pushed below
        const check = (): void => {
          const quiet = batch.length === seen;
          seen = batch.length;
          if (quiet || Date.now() - first >= GATHER_MAX_MS) close();
          else setTimeout(check, GATHER_QUIET_MS);
        };
        setTimeout(check, GATHER_QUIET_MS);
      }
      gathering.push({ request, signal, resolve: once });
    });
}
