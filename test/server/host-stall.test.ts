/**
 * No tenant can stall the host (docs/decisions/029-host-work.md): a program whose 40 nested results
 * are 16,000 characters of one CJK letter (each ~1–3.5 s in the o200k tokenizer, were the host to
 * tokenise it) runs through `startHttpServer` while `/healthz` and another tenant's one-line run
 * answer. The bound is generous (load-proof); real figures are in benchmarks/host-stall.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, defineTool, type Runtime, type ToolResult } from '../../src/index.js';
import { startHttpServer, type HttpServer } from '../../src/server/index.js';
import { z } from 'zod';

const KEY_A = 'key-attacker-0123456789abcdef';
const KEY_B = 'key-bystander-0123456789abcdef';
/** 16,000 characters of the `i`th CJK letter: distinct texts, so no tokenizer cache helps. */
const cjk = (i: number): string => String.fromCharCode(0x4e00 + i).repeat(16_000);
const ATTACK = {
  code: `const texts = await Promise.all(Array.from({ length: 40 }, (_, i) => tools.text.cjk({ i })));
return texts.length;`,
  description: 'forty CJK texts',
};
/** Generous: before the fix the host was busy for ~40 s; a healthy host answers in milliseconds. */
const BOUND_MS = 5_000;

let rt: Runtime;
let server: HttpServer;
let nested = 0;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'text.cjk',
        description: 'Returns 16,000 characters of one CJK letter.',
        input: z.object({ i: z.number().int() }),
        output: z.string(),
        isConcurrencySafe: true,
        execute: ({ i }: { i: number }) => cjk(i),
      }),
      defineTool({
        name: 'text.echo',
        description: 'Echoes a text.',
        input: z.object({ text: z.string() }),
        output: z.string(),
        execute: ({ text }: { text: string }) => text,
      }),
    ],
    scopes: {
      attacker: { mode: 'code', allow: ['text.cjk'] },
      bystander: { mode: 'code', allow: ['text.echo'] },
    },
  });
  rt.on((e) => {
    if (e.type === 'tool/result' && e.name === 'text.cjk') nested += 1;
  });
  server = await startHttpServer({
    runtime: rt,
    defaultScope: 'bystander',
    apiKeys: [
      { key: KEY_A, scope: 'attacker' },
      { key: KEY_B, scope: 'bystander' },
    ],
    port: 0,
  });
});
afterAll(async () => {
  await server.close();
  await rt.close();
});

const post = (key: string, body: object): Promise<Response> =>
  fetch(`${server.url}/v1/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

/**
 * Calls `probe` one after another until `done` settles; the longest wait between two answers (or
 * from the start to the first, or from the last to `done`). A host stalled by a run shows the stall
 * here whichever process measures, since the probes themselves wait for the host's event loop.
 */
const longestGap = async (done: Promise<unknown>, probe: () => Promise<void>): Promise<number> => {
  let over = false;
  void done.finally(() => (over = true));
  let last = performance.now();
  let longest = 0;
  while (!over) {
    await probe();
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    await new Promise((r) => setTimeout(r, 20));
  }
  return Math.max(longest, performance.now() - last);
};

describe('a run that returns costly texts does not stall the host', () => {
  it('healthz and another tenant answer while the ledger attack runs; the ledger still reports', async () => {
    const attack = post(KEY_A, ATTACK);
    const [health, other] = await Promise.all([
      longestGap(attack, async () => {
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      }),
      longestGap(attack, async () => {
        const r = (await (
          await post(KEY_B, {
            code: 'return await tools.text.echo({ text: "hi" });',
            description: 'hi',
          })
        ).json()) as ToolResult;
        expect(r.ok && r.value).toMatchObject({ result: 'hi' });
      }),
    ]);
    expect(nested).toBe(40);
    expect(health).toBeLessThan(BOUND_MS);
    expect(other).toBeLessThan(BOUND_MS);

    const r = (await (await attack).json()) as ToolResult;
    expect(r.ok && r.value).toMatchObject({ result: 40 });
    expect(r.meta.savings).toMatchObject({
      nestedCalls: 40,
      nestedResultBytes: 40 * Buffer.byteLength(JSON.stringify(cjk(0))),
      tokensEstimated: true,
    });
    expect(r.meta.savings?.nestedResultTokens).toBeGreaterThan(0);

    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^isocode_event_loop_lag_seconds\{quantile="0\.99"\} \d/m);
    expect(metrics).toMatch(/^isocode_event_loop_lag_max_seconds \d/m);
  }, 120_000);
});
