/**
 * The savings ledger on a known program, through the real runner: the catalog figures, the bytes
 * and tokens of nested results vs what was returned, the nested calls of one model turn, a failed
 * run, and the Prometheus totals of the HTTP face.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type ToolResult } from '../../src/index.js';
import { createHttpApp } from '../../src/server/index.js';
import { countTokens, estimateTokens } from '../../src/tokens.js';
import { until } from '../sources/helpers.js';

const rows = (n: number): { rows: { id: number; name: string; tags: string[] }[] } => ({
  rows: Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] })),
});

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      {
        name: 'data.rows',
        description: 'Returns n rows.',
        input: {
          type: 'object',
          properties: { n: { type: 'integer' } },
          required: ['n'],
        },
        execute: (args: unknown) => rows((args as { n: number }).n),
      },
      {
        name: 'data.fail',
        description: 'Always fails.',
        input: { type: 'object', properties: {} },
        execute: () => {
          throw new Error('no');
        },
      },
    ],
    scopes: { default: { mode: 'code' }, small: { mode: 'code' } },
    codeMode: { warmup: false, typecheck: 'off' },
  });
});
afterAll(() => rt.close());

const PROGRAM = `
const a = await tools.data.rows({ n: 3 });
const b = await tools.data.rows({ n: 2000 });
try { await tools.data.fail({}); } catch {}
return a.rows.length + b.rows.length;`;

const savings = (r: ToolResult) => {
  if (!r.meta.savings) throw new Error('no ledger');
  return r.meta.savings;
};

describe('the savings ledger', () => {
  it('reports the figures of a known program', async () => {
    const r = await rt.execute({ name: 'run_code', args: { code: PROGRAM, description: 'rows' } });
    expect(r.ok).toBe(true);
    const small = JSON.stringify(rows(3));
    const big = JSON.stringify(rows(2000));
    const description = rt.wireSchemas()[0]!.description;
    const wire = JSON.stringify(
      rt.schemas().map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
      })),
    );
    expect(savings(r)).toEqual({
      shownTokens: countTokens(description),
      sdkTokens: countTokens(rt.sdk().text),
      wireTokens: countTokens(wire),
      nestedCalls: 3,
      nestedResultBytes: Buffer.byteLength(small) + Buffer.byteLength(big),
      nestedResultTokens: estimateTokens(small) + estimateTokens(big),
      returnedBytes: 4,
      returnedTokens: estimateTokens('2003'),
      tokensEstimated: true,
    });
    // The estimate is near the exact count (o200k on this JSON; docs/decisions/029-host-work.md).
    expect(Math.abs(estimateTokens(big) - countTokens(big)) / countTokens(big)).toBeLessThan(0.35);
  });

  it('a failed run has a ledger too; a caller’s id shared by two live runs gets none', async () => {
    const r = await rt.execute({
      name: 'run_code',
      args: { code: 'await tools.data.rows({ n: 1 }); throw new Error("x");', description: 'f' },
    });
    expect(!r.ok && r.error.code).toBe('CODE_RUN_FAILED');
    expect(savings(r)).toMatchObject({ nestedCalls: 1, returnedBytes: 0, tokensEstimated: true });
    const twice = await Promise.all(
      [1, 2].map(() =>
        rt.execute({
          name: 'run_code',
          id: 'same-id',
          args: { code: 'return (await tools.data.rows({ n: 1 })).rows.length;', description: 's' },
        }),
      ),
    );
    expect(twice.map((t) => t.ok)).toEqual([true, true]);
    expect(twice.map((t) => t.meta.savings)).toEqual([undefined, undefined]);
    const again = await rt.execute({
      name: 'run_code',
      id: 'same-id',
      args: { code: 'return 1;', description: 's' },
    });
    expect(savings(again).nestedCalls).toBe(0);
  });

  it('in compact mode the shown figure is the compact index', async () => {
    const compact = await createRuntime({
      tools: rt.schemas().map((t) => ({ ...t, input: t.inputSchema, execute: () => null })),
      scopes: { default: { mode: 'code' } },
      codeMode: { warmup: false, typecheck: 'off', discovery: { mode: 'always' } },
    });
    try {
      const r = await compact.execute({
        name: 'run_code',
        args: { code: 'return 1;', description: 'c' },
      });
      const l = savings(r);
      expect(l.shownTokens).toBe(countTokens(compact.wireSchemas()[0]!.description));
      expect(l.shownTokens).toBeLessThan(
        countTokens(compact.wireSchemas('default', { mode: 'never' })[0]!.description),
      );
    } finally {
      await compact.close();
    }
  });

  it('savings: false keeps no ledger, and output inference still sees the nested results', async () => {
    const off = await createRuntime({
      tools: [
        {
          name: 'data.rows',
          description: 'Returns n rows.',
          input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
          execute: (args: unknown) => rows((args as { n: number }).n),
        },
      ],
      scopes: { default: { mode: 'code' } },
      codeMode: {
        warmup: false,
        typecheck: 'off',
        savings: false,
        inferOutputs: { dir: mkdtempSync(join(tmpdir(), 'isocode-ledger-')) },
      },
    });
    try {
      const r = await off.execute({
        name: 'run_code',
        args: { code: 'return (await tools.data.rows({ n: 2 })).rows.length;', description: 'off' },
      });
      expect(r.ok).toBe(true);
      expect(r.meta.savings).toBeUndefined();
      await until(() => (off.stats().inference?.folded ?? 0) >= 1, 'one folded result');
    } finally {
      await off.close();
    }
  });

  it('the HTTP face sums the ledgers as Prometheus counters', async () => {
    const app = createHttpApp({ runtime: rt, defaultScope: 'default', apiKeys: [] });
    const res = await app.request('/v1/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: PROGRAM, description: 'rows' }),
    });
    const l = savings((await res.json()) as ToolResult);
    const text = await (await app.request('/metrics')).text();
    const sample = (name: string): number =>
      Number(
        text
          .split('\n')
          .find((x) => x.startsWith(`${name} `))
          ?.slice(name.length + 1),
      );
    expect(sample('isocode_savings_nested_result_bytes_total')).toBe(l.nestedResultBytes);
    expect(sample('isocode_savings_nested_result_tokens_total')).toBe(l.nestedResultTokens);
    expect(sample('isocode_savings_returned_bytes_total')).toBe(4);
    expect(sample('isocode_savings_returned_tokens_total')).toBe(l.returnedTokens);
    expect(sample('isocode_savings_shown_tokens_total')).toBe(l.shownTokens);
    expect(sample('isocode_savings_wire_tokens_total')).toBe(l.wireTokens);
  });
});
