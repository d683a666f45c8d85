/**
 * Approvals by elicitation on the MCP face: the SDK's own Client, declaring `elicitation`, over a
 * linked in-memory transport. Real runtime and isolate runner; a hook asks for `danger`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type ApprovalRequest, type Runtime } from '../../src/index.js';
import {
  createMcpServer,
  ERROR_META_KEY,
  serveMcpHttp,
  type McpServerOptions,
} from '../../src/mcp/index.js';
import {
  approvalMessage,
  ELICITATION_REQUEST_TIMEOUT_MS,
  elicitingApprover,
  MAX_SHOWN_ARGS,
} from '../../src/mcp/elicit.js';

const ran: string[] = [];
const runtimeAsked: ApprovalRequest[] = [];
const audit: Record<string, unknown>[] = [];
let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime({
    tools: [
      defineTool({
        name: 'write',
        description: 'Writes a key (not concurrency-safe: bodies run one at a time).',
        input: z.object({ key: z.string() }),
        execute: async ({ key }: { key: string }) => {
          await new Promise((r) => setImmediate(r)); // a body that yields: overlap would show
          ran.push(key);
          return `wrote ${key}`;
        },
      }),
      defineTool({
        name: 'danger',
        description: 'Needs approval.',
        input: z.object({ who: z.string() }).passthrough(),
        isConcurrencySafe: true,
        execute: ({ who }: { who: string }) => {
          ran.push(who);
          return `done ${who}`;
        },
      }),
    ],
    scopes: { default: { mode: 'code' }, native: { mode: 'native' } },
    hooks: {
      preExecute: (ctx) => {
        if (ctx.call.name === 'write') return { action: 'ask', message: 'a write' };
        if (ctx.call.name !== 'danger') return undefined;
        const who = (ctx.call.args as { who?: unknown }).who;
        return { action: 'ask', message: `danger for ${String(who)}` };
      },
    },
    approver: (request) => {
      runtimeAsked.push(request);
      return 'rejected';
    },
    audit: { write: (line) => audit.push(JSON.parse(line) as Record<string, unknown>) },
  });
});
afterAll(async () => {
  await runtime.close();
});
beforeEach(() => {
  ran.length = 0;
  runtimeAsked.length = 0;
  audit.length = 0;
});

type Answer = (request: ElicitRequest, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>;

/** A connected client; `answer` (when given) is its elicitation handler and declares the capability. */
async function connect(
  answer: Answer | undefined,
  options: Partial<McpServerOptions> = {},
): Promise<{ client: Client; asked: ElicitRequest[] }> {
  const server = createMcpServer({ runtime, ...options });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const asked: ElicitRequest[] = [];
  const client = new Client(
    { name: 'test', version: '0.0.0' },
    answer ? { capabilities: { elicitation: {} } } : {},
  );
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      asked.push(request);
      return answer(request, extra.signal);
    });
  await client.connect(b);
  return { client, asked };
}

const runCode = (client: Client, code: string, signal?: AbortSignal): Promise<CallToolResult> =>
  client.callTool(
    { name: 'run_code', arguments: { code, description: 'test' } },
    undefined,
    signal ? { signal } : {},
  ) as Promise<CallToolResult>;

const text = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** A program that calls danger once and returns its value or the error's code and message. */
const once = (who: string): string =>
  `try { return await tools.danger({ who: ${JSON.stringify(who)} }); } catch (e) { return (e as ToolCallError).code + ': ' + (e as Error).message; }`;

const approve = (approve: boolean): ElicitResult => ({ action: 'accept', content: { approve } });

const decided = (): unknown[] =>
  audit.filter((e) => e['type'] === 'approval/decided').map((e) => e['outcome']);

describe('a client with the elicitation capability', () => {
  it('is asked with a form naming the tool, the reason and the arguments; approve runs the tool', async () => {
    const { client, asked } = await connect(() => approve(true));
    const r = await runCode(client, once('alice'));
    expect(text(r)).toContain('done alice');
    expect(ran).toEqual(['alice']);
    expect(runtimeAsked).toEqual([]);
    expect(asked).toHaveLength(1);
    const params = asked[0]?.params as { message: string; requestedSchema: unknown; mode?: string };
    expect(params.message).toContain('"danger"');
    expect(params.message).toContain('danger for alice');
    expect(params.message).toContain('{"who":"alice"}');
    expect(params.requestedSchema).toMatchObject({
      type: 'object',
      properties: { approve: { type: 'boolean' } },
      required: ['approve'],
    });
    await client.close();
  });

  it('approve:false is a DENIED result (approval-rejected) and the tool does not run', async () => {
    const { client } = await connect(() => approve(false), { scope: 'native' });
    const r = (await client.callTool({
      name: 'danger',
      arguments: { who: 'bob' },
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(r._meta?.[ERROR_META_KEY]).toMatchObject({
      code: 'DENIED',
      reason: 'approval-rejected',
    });
    expect(ran).toEqual([]);
    await client.close();
  });

  it('decline rejects and cancel cancels (in a program: DENIED)', async () => {
    const declined = await connect(() => ({ action: 'decline' }));
    expect(text(await runCode(declined.client, once('d')))).toContain(
      'DENIED: the approver rejected the call',
    );
    const cancelled = await connect(() => ({ action: 'cancel' }));
    expect(text(await runCode(cancelled.client, once('c')))).toContain(
      'DENIED: the approval was cancelled',
    );
    expect(ran).toEqual([]);
    expect(decided()).toEqual(['rejected', 'cancelled']);
    await declined.client.close();
    await cancelled.client.close();
  });

  it('fails closed on an answer that does not fit the form, or no answer at all', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { approve: 'yes' } },
      { action: 'accept' },
      { action: 'accept', content: {} },
    ];
    for (const answer of answers) {
      const { client } = await connect(() => answer, { scope: 'native' });
      const r = (await client.callTool({
        name: 'danger',
        arguments: { who: 'm' },
      })) as CallToolResult;
      expect(r._meta?.[ERROR_META_KEY]).toMatchObject({
        code: 'DENIED',
        reason: 'approval-unavailable',
      });
      await client.close();
    }
    // A handler that throws: the client answers with a JSON-RPC error.
    const { client } = await connect(() => {
      throw new Error('the UI crashed');
    });
    expect(text(await runCode(client, once('t')))).toContain(
      'DENIED: no approval could be obtained',
    );
    await client.close();
    expect(ran).toEqual([]);
    expect(decided()).toEqual(['unavailable', 'unavailable', 'unavailable', 'unavailable']);
  });

  it('a client that disconnects while asked: the tool does not run', async () => {
    const late: { client?: Client } = {};
    const { client } = await connect(async () => {
      await late.client?.close();
      return approve(true);
    });
    late.client = client;
    await expect(runCode(client, once('gone'))).rejects.toThrow();
    // The call settles on the server after the disconnect.
    await expect.poll(() => decided()).toHaveLength(1);
    // The closed transport aborts the call too (today that lands first: `cancelled`); either way
    // the call fails closed.
    expect(['unavailable', 'cancelled']).toContain(decided()[0]);
    await expect
      .poll(() => audit.some((e) => e['type'] === 'tool/result' && e['name'] === 'run_code'))
      .toBe(true);
    expect(ran).toEqual([]);
  });

  it('cancelling the tools/call aborts the pending elicitation', async () => {
    const controller = new AbortController();
    let elicitationAborted = false;
    let first = true;
    const { client } = await connect(
      (_request, signal) =>
        new Promise<ElicitResult>((resolve) => {
          // The SDK's client ignores a cancellation of request id 0 (`!requestId`), the server's
          // first request: the first ask of the session is answered, the second is cancelled.
          if (first) {
            first = false;
            resolve(approve(true));
            return;
          }
          signal.addEventListener('abort', () => {
            elicitationAborted = true;
            resolve({ action: 'cancel' });
          });
          controller.abort();
        }),
    );
    expect(text(await runCode(client, once('first')))).toContain('done first');
    await expect(runCode(client, once('x'), controller.signal)).rejects.toThrow();
    await expect.poll(() => elicitationAborted).toBe(true);
    await expect.poll(() => decided()).toEqual(['allowed-once', 'cancelled']);
    expect(ran).toEqual(['first']);
    await client.close();
  });

  it('the asks of one Promise.all are one form, a yes/no per call, each decided on its own', async () => {
    const { client, asked } = await connect((request) => {
      const props = Object.keys(
        (request.params as { requestedSchema: { properties: object } }).requestedSchema.properties,
      );
      // Approve the first and third, reject the second.
      return {
        action: 'accept',
        content: Object.fromEntries(props.map((p, i) => [p, i !== 1])),
      };
    });
    const r = await runCode(
      client,
      `return await Promise.all(['a', 'b', 'c'].map((who) => tools.danger({ who }).catch((e: ToolCallError) => e.code)));`,
    );
    expect(asked).toHaveLength(1);
    const params = asked[0]?.params as { message: string; requestedSchema: unknown };
    expect(params.requestedSchema).toMatchObject({
      type: 'object',
      properties: {
        approve_1: { type: 'boolean', title: 'Approve call 1: danger' },
        approve_2: { type: 'boolean' },
        approve_3: { type: 'boolean' },
      },
      required: ['approve_1', 'approve_2', 'approve_3'],
    });
    const lines = params.message.split('\n');
    expect(lines[0]).toMatch(/^Approve 3 tool calls from a run_code program\?/);
    expect(lines.filter((l) => /^\d\. Approve a call of the tool "danger"/.test(l))).toHaveLength(
      3,
    );
    expect(params.message).toContain('{"who":"b"}');
    expect(JSON.parse(text(r).match(/\[.*\]/s)?.[0] ?? 'null')).toEqual([
      'done a',
      'DENIED',
      'done c',
    ]);
    expect(ran.sort()).toEqual(['a', 'c']);
    expect(decided().sort()).toEqual(['allowed-once', 'allowed-once', 'rejected']);
    await client.close();
  });

  it('three gated writes of a tool that is not concurrency-safe: one form with three asks, each run once, in program order', async () => {
    const { client, asked } = await connect((request) => ({
      action: 'accept',
      content: Object.fromEntries(
        Object.keys(
          (request.params as { requestedSchema: { properties: object } }).requestedSchema
            .properties,
        ).map((p) => [p, true]),
      ),
    }));
    const r = await runCode(
      client,
      `return await Promise.all(['w1', 'w2', 'w3'].map((key) => tools.write({ key })));`,
    );
    expect(asked).toHaveLength(1);
    expect(
      Object.keys(
        (asked[0]?.params as { requestedSchema: { properties: object } }).requestedSchema
          .properties,
      ),
    ).toEqual(['approve_1', 'approve_2', 'approve_3']);
    expect(text(r)).toContain('wrote w3');
    expect(ran).toEqual(['w1', 'w2', 'w3']);
    await client.close();
  });

  it('decline of a batch form rejects every call in it', async () => {
    const { client, asked } = await connect(() => ({ action: 'decline' }));
    const r = await runCode(
      client,
      `return await Promise.all(['a', 'b'].map((who) => tools.danger({ who }).catch((e: ToolCallError) => e.code)));`,
    );
    expect(asked).toHaveLength(1);
    expect(text(r)).toContain('"DENIED"');
    expect(ran).toEqual([]);
    await client.close();
  });

  it('shows hostile reasons and arguments with control and bidi characters as escapes, and caps the arguments', async () => {
    const { client, asked } = await connect(() => approve(false), { scope: 'native' });
    const hostile = 'ev\u202eil\u0007\u009b[2J\u2066x\u2069\u200b\r\nFAKE: approved\ufeff';
    await client.callTool({
      name: 'danger',
      arguments: { who: hostile, pad: 'p'.repeat(5_000) },
    });
    const message = (asked[0]?.params as { message: string }).message;
    expect(message).not.toMatch(
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/,
    );
    // Line breaks are the message's own three only: none comes from the reason or the arguments.
    expect(message.split('\n')).toHaveLength(3);
    // Shown, not dropped: each hidden character is a visible escape (decision 028).
    const [, reasonLine, argsLine0] = message.split('\n');
    expect(reasonLine).toBe(
      'Reason: danger for ev\\u202Eil\\u0007\\u009B[2J\\u2066x\\u2069\\u200B\\u000D\\u000AFAKE: approved',
    );
    expect(argsLine0).toContain(
      '"who":"ev\\u202Eil\\u0007\\u009B[2J\\u2066x\\u2069\\u200B\\r\\nFAKE',
    );
    const argsLine = message.split('\n')[2] ?? '';
    expect(argsLine.length).toBeLessThanOrEqual('Arguments: '.length + MAX_SHOWN_ARGS);
    expect(argsLine.endsWith('…')).toBe(true);
    expect(argsLine).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/); // no half of a pair
    expect(ran).toEqual([]);
    await client.close();
  });
});

describe('the message', () => {
  it('caps the arguments without splitting a surrogate pair', () => {
    for (const prefix of ['x', 'xx']) {
      const message = approvalMessage({
        callId: 'c',
        name: 'danger',
        args: { a: prefix + '\u{1F600}'.repeat(600) },
        scope: 'default',
        parentId: undefined,
        messages: [],
      });
      const argsLine = message.split('\n')[2] ?? '';
      expect(argsLine.endsWith('…')).toBe(true);
      expect(argsLine).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
      expect(argsLine.length).toBeLessThanOrEqual('Arguments: '.length + MAX_SHOWN_ARGS);
    }
  });
});

describe('time-outs', () => {
  it("lifts the SDK's 60 s request time-out and passes the executor's signal", async () => {
    let seen: { timeout?: number; signal?: AbortSignal; relatedRequestId?: unknown } = {};
    const fake = {
      elicitInput: (_params: unknown, options: typeof seen) => {
        seen = options;
        return Promise.resolve(approve(true));
      },
    } as unknown as Parameters<typeof elicitingApprover>[0];
    const signal = new AbortController().signal;
    const request = {
      callId: 'c',
      name: 'danger',
      args: {},
      scope: 'default',
      parentId: undefined,
      messages: [],
    };
    expect(await elicitingApprover(fake, 7)(request, signal)).toEqual({
      outcome: 'allowed-once',
      decidedBy: 'mcp-elicitation:client', // the fake server has no handshake record
    });
    expect(seen).toEqual({ timeout: ELICITATION_REQUEST_TIMEOUT_MS, signal, relatedRequestId: 7 });
  });

  it("the runtime's approval time-out bounds the wait: the call fails closed and the elicitation is cancelled", async () => {
    const short = await createRuntime({
      tools: [
        defineTool({
          name: 'danger',
          description: 'Needs approval.',
          input: z.object({}),
          execute: () => ran.push('short'),
        }),
      ],
      hooks: { preExecute: () => ({ action: 'ask' }) },
      approvalTimeoutMs: 200,
    });
    try {
      const server = createMcpServer({ runtime: short });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      let calls = 0;
      let aborted = false;
      const client = new Client(
        { name: 'test', version: '0.0.0' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
        calls += 1;
        // The first request of a session (id 0) is answered: see the cancellation test.
        if (calls === 1) return approve(true);
        return new Promise<ElicitResult>((resolve) => {
          extra.signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ action: 'cancel' });
          });
        });
      });
      await client.connect(b);
      expect(
        ((await client.callTool({ name: 'danger', arguments: {} })) as CallToolResult).isError,
      ).toBeFalsy();
      const r = (await client.callTool({ name: 'danger', arguments: {} })) as CallToolResult;
      expect(r._meta?.[ERROR_META_KEY]).toMatchObject({
        code: 'DENIED',
        reason: 'approval-unavailable',
      });
      await expect.poll(() => aborted).toBe(true);
      expect(ran).toEqual(['short']);
      await client.close();
    } finally {
      await short.close();
    }
  });
});

describe('over streamable HTTP', () => {
  const capable = (): Client => {
    const client = new Client(
      { name: 'test', version: '0.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => approve(true));
    return client;
  };

  it('a stateful session is asked on the stream of its call', async () => {
    const handle = await serveMcpHttp({ runtime, port: 0 });
    try {
      const client = capable();
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      expect(text(await runCode(client, once('http')))).toContain('done http');
      expect(ran).toEqual(['http']);
      expect(runtimeAsked).toEqual([]);
      await client.close();
    } finally {
      await handle.close();
    }
  });

  it('stateless: no server keeps the capability, so the runtime approver answers', async () => {
    const handle = await serveMcpHttp({ runtime, port: 0, sessions: 'stateless' });
    try {
      const client = capable();
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      expect(text(await runCode(client, once('stateless')))).toContain('DENIED');
      expect(runtimeAsked).toHaveLength(1);
      expect(ran).toEqual([]);
      await client.close();
    } finally {
      await handle.close();
    }
  });
});

describe('without elicitation', () => {
  it('a client without the capability keeps the runtime approver', async () => {
    const { client } = await connect(undefined);
    expect(text(await runCode(client, once('plain')))).toContain('DENIED');
    expect(runtimeAsked.map((r) => r.args)).toEqual([{ who: 'plain' }]);
    expect(ran).toEqual([]);
    await client.close();
  });

  it('elicitation: false keeps the runtime approver for a capable client', async () => {
    const { client, asked } = await connect(() => approve(true), { elicitation: false });
    expect(text(await runCode(client, once('off')))).toContain('DENIED');
    expect(asked).toEqual([]);
    expect(runtimeAsked).toHaveLength(1);
    await client.close();
  });
});

describe('the audit log', () => {
  it('records the ask and the decision of an elicited approval as for any approver', async () => {
    const { client } = await connect(() => approve(true), { scope: 'native' });
    await client.callTool({ name: 'danger', arguments: { who: 'audited' } });
    const asked = audit.find((e) => e['type'] === 'approval/asked');
    const done = audit.find((e) => e['type'] === 'approval/decided');
    expect(asked).toMatchObject({ name: 'danger', scope: 'native', message: 'danger for audited' });
    expect(done).toMatchObject({
      name: 'danger',
      outcome: 'allowed-once',
      callId: asked?.['callId'],
    });
    expect(audit.find((e) => e['type'] === 'tool/result')).toMatchObject({ ok: true });
    await client.close();
  });
});
