/**
 * The inventory of host work (docs/decisions/029-host-work.md), its size bounds: what a program
 * sends or makes a tool return reaches the audit and the event stream capped per field, whatever its
 * size, and a call over the argument limit is refused in the sandbox (never serialised by the host).
 * Through the public runtime and the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';

const lines: string[] = [];
let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'blob.echo',
        description: 'Returns the length of what it was sent, and as much text as asked.',
        input: z.object({ text: z.string(), back: z.number().int() }),
        output: z.object({ got: z.number(), text: z.string() }),
        isConcurrencySafe: true,
        execute: ({ text, back }: { text: string; back: number }) => ({
          got: text.length,
          text: 'r'.repeat(back),
        }),
      }),
    ],
    scopes: { default: { mode: 'code' } },
    audit: { write: (line) => lines.push(line), maxFieldBytes: 4096 },
  });
});
afterAll(() => rt.close());

describe('host work is capped by size', () => {
  it('a near-limit argument and result reach the audit capped per field', async () => {
    lines.length = 0;
    const r = await rt.execute({
      name: 'run_code',
      args: {
        code: 'const big = "a".repeat(1_000_000);\nconst r = await Promise.all([1, 2, 3].map(() => tools.blob.echo({ text: big, back: 900_000 })));\nreturn r.map((x) => x.got + x.text.length);',
        description: 'big calls',
      },
    });
    expect(r.ok && r.value).toMatchObject({ result: [1_900_000, 1_900_000, 1_900_000] });
    const events = lines.map(
      (l) => JSON.parse(l) as { type: string; name: string; args?: unknown },
    );
    const nested = events.filter((e) => e.name === 'blob.echo');
    expect(nested.length).toBeGreaterThanOrEqual(6); // a call and a result record per call at least
    // Every audit line stays near the field cap, not the megabyte the program sent.
    for (const line of lines) expect(line.length).toBeLessThan(4096 + 2048);
    const call = nested.find((e) => e.type === 'tool/call');
    expect(call?.args).toMatchObject({ truncated: true });
  });

  it('an argument over the limit is refused in the sandbox: the host never dispatches it', async () => {
    lines.length = 0;
    const r = await rt.execute({
      name: 'run_code',
      args: {
        code: 'const big = "a".repeat(1_100_000);\ntry { await tools.blob.echo({ text: big, back: 0 }); return "sent"; } catch (e) { return String(e); }',
        description: 'too big',
      },
    });
    expect(r.ok && r.value).toMatchObject({
      result: expect.stringMatching(/arguments of blob\.echo exceed \d+ bytes/) as unknown,
    });
    const events = lines.map((l) => JSON.parse(l) as { type: string; name: string });
    expect(events.filter((e) => e.name === 'blob.echo')).toHaveLength(0);
  });
});
