/** The sandbox side of durable runs: call traces and the recorded clock and dice, through run_code. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type Runtime, type ToolResult } from '../../src/index.js';
import { attachDurableSeam, type DurableSeam } from '../../src/run-code/durable-seam.js';
import type { CallTrace, DurableTape } from '../../src/sandbox/types.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'echo',
        description: 'Echoes.',
        input: z.object({ v: z.unknown() }),
        isConcurrencySafe: true,
        execute: ({ v }: { v: unknown }) => v ?? null,
      }),
    ],
    scopes: { default: { mode: 'code' } },
    codeMode: { typecheck: 'off' },
  });
});
afterAll(() => rt.close());

let n = 0;
async function durableRun(
  code: string,
  tape: DurableTape = { clock: [], random: [] },
): Promise<{ result: ToolResult; traces: { name: string; args: unknown; trace: CallTrace }[] }> {
  const traces: { name: string; args: unknown; trace: CallTrace }[] = [];
  const seam: DurableSeam = {
    tape,
    call: (name, args, trace, run) => {
      traces.push({ name, args, trace });
      return run(`${id}/${traces.length}`);
    },
  };
  const id = `durable-test-${++n}`;
  const detach = attachDurableSeam(id, seam);
  try {
    const result = await rt.execute({ id, name: 'run_code', args: { code, description: 't' } });
    return { result, traces };
  } finally {
    detach();
  }
}
const value = (r: ToolResult): unknown =>
  r.ok ? (r.value as { result: unknown }).result : r.error;

describe('durable sandbox runs', () => {
  it('gives every call its site in program coordinates and ships the clock and dice values before it', async () => {
    const { result, traces } = await durableRun(
      [
        'const t = Date.now();',
        'const r = Math.random();',
        'await tools.echo({ v: 1 });',
        'const d = new Date().getTime();',
        'const [a, b] = await Promise.all([tools.echo({ v: 2 }), tools.echo({ v: 3 })]);',
        'return [t, r, d];',
      ].join('\n'),
    );
    const [t, r, d] = value(result) as number[];
    expect(traces.map((c) => c.trace.site)).toEqual(['3:13', '5:41', '5:63']);
    expect(traces[0]?.trace.clock).toEqual([t]);
    expect(traces[0]?.trace.random).toEqual([r]);
    expect(traces[1]?.trace.clock).toEqual([d]);
    expect(traces[2]?.trace.clock).toEqual([]);
  });

  it('keeps the program frames of a helper: one site per caller', async () => {
    const { traces } = await durableRun(
      ['const call = (v: number) => tools.echo({ v });', 'await call(1);', 'await call(2);'].join(
        '\n',
      ),
    );
    expect(traces.map((c) => c.trace.site)).toEqual(['1:35 < 2:7', '1:35 < 3:7']);
  });

  it('serves the recorded values first, then live ones, and records only the live ones', async () => {
    const { result, traces } = await durableRun(
      [
        'const a = [Date.now(), new Date().getTime(), Math.random(), Date.now()];',
        'await tools.echo({ v: 1 });',
        'return a;',
      ].join('\n'),
      { clock: [1000, 2000], random: [0.25] },
    );
    const got = value(result) as number[];
    expect(got.slice(0, 3)).toEqual([1000, 2000, 0.25]);
    expect(got[3]).toBeGreaterThan(1_600_000_000_000);
    expect(traces[0]?.trace.clock).toEqual([got[3]]);
    expect(traces[0]?.trace.random).toEqual([]);
  });

  it('keeps Date working: instanceof, Date(), parse, UTC, arguments', async () => {
    const { result } = await durableRun(
      [
        'const d = new Date(0);',
        'return [d instanceof Date, d.getTime(), typeof Date(), Date.UTC(1970, 0, 2), Date.parse("1970-01-01T00:00:01Z"), new Date() instanceof Date, Date.prototype.constructor === Date];',
      ].join('\n'),
      { clock: [5], random: [] },
    );
    expect(value(result)).toEqual([true, 0, 'string', 86_400_000, 1000, true, true]);
  });

  it('reads the recorded clock in Intl.DateTimeFormat format() and formatToParts() without a date: the same text on replay', async () => {
    const code = [
      "const f = new Intl.DateTimeFormat('en', { timeStyle: 'full', timeZone: 'UTC' });",
      "const text = [f.format(), f.formatToParts().map((p) => p.value).join('').replace(/\\s/g, ' '), f.format(0)];",
      'await tools.echo({ v: 1 });',
      'return [text, f.format === f.format];',
    ].join('\n');
    // Served from the tape: 01:02:03 and 04:05:06 UTC on 2 January 1970, whatever the time is now.
    const served = await durableRun(code, { clock: [90_123_000, 101_106_000], random: [] });
    expect(value(served.result)).toEqual([
      [
        '1:02:03 AM Coordinated Universal Time',
        '4:05:06 AM Coordinated Universal Time',
        '12:00:00 AM Coordinated Universal Time',
      ],
      true,
    ]);
    expect(served.traces[0]?.trace.clock).toEqual([]);
    // A live run records the two readings; its replay from them formats the same text.
    const live = await durableRun(code);
    const recorded = live.traces[0]?.trace.clock ?? [];
    expect(recorded).toHaveLength(2);
    const replay = await durableRun(code, { clock: recorded, random: [] });
    expect(value(replay.result)).toEqual(value(live.result));
  });

  it('costs nothing to a run without a seam: no trace, live values', async () => {
    const r = await rt.execute({
      name: 'run_code',
      args: { code: 'await tools.echo({ v: 1 }); return Date.now();', description: 't' },
    });
    expect(value(r)).toBeGreaterThan(1_600_000_000_000);
  });
});
