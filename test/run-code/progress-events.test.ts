/**
 * A run's call events through `runtime.onProgress`: each call announces its start and its end to
 * whoever listens as it starts — both, or neither. A listener that subscribes while a call is in
 * flight sees the calls that start after it, never the end of a call whose start it did not see;
 * with nobody listening the run still records its calls (`value.calls`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool, type RunProgressEvent, type Runtime } from '../../src/index.js';

/** Set by a test: the next call signals `entered` and waits for `open` before it answers. */
let hold: { entered: () => void; open: Promise<void> } | undefined;
const gate = defineTool({
  name: 'gate.wait',
  description: 'Answers its number; the call a test holds waits until the test lets it go.',
  input: z.object({ n: z.number() }),
  isConcurrencySafe: true,
  execute: async ({ n }: { n: number }) => {
    const held = hold;
    hold = undefined;
    if (held !== undefined) {
      held.entered();
      await held.open;
    }
    return { n };
  },
});

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({
    tools: [gate],
    scopes: { default: { mode: 'code' } },
    codeMode: { typecheck: 'off' },
  });
});
afterAll(() => rt.close());

const PROGRAM =
  'const a = await tools.gate.wait({ n: 1 }); const b = await tools.gate.wait({ n: 2 }); return a.n + b.n;';

describe('call events', () => {
  it('go to a listener that joined mid-run only for the calls that started after it', async () => {
    let letGo = (): void => undefined;
    const inFlight = new Promise<void>((entered) => {
      hold = { entered, open: new Promise<void>((resolve) => (letGo = resolve)) };
    });
    const run = rt.execute({ name: 'run_code', args: { code: PROGRAM, description: 'late' } });
    await inFlight; // call 1 is running, announced to nobody
    const events: RunProgressEvent[] = [];
    const off = rt.onProgress((_id, event) => {
      if (event.type === 'call-start' || event.type === 'call-end') events.push(event);
    });
    letGo();
    const result = await run;
    off();
    expect(result.ok).toBe(true);
    expect(events.map((e) => `${e.type}:${'seq' in e ? e.seq : ''}`)).toEqual([
      'call-start:2',
      'call-end:2',
    ]);
    // The run itself recorded both calls.
    if (!result.ok) return;
    expect((result.value as { calls: unknown[] }).calls).toHaveLength(2);
  });

  it('go to a listener that was there from the start, with arguments and results', async () => {
    const events: RunProgressEvent[] = [];
    const off = rt.onProgress((_id, event) => {
      if (event.type === 'call-start' || event.type === 'call-end') events.push(event);
    });
    const result = await rt.execute({
      name: 'run_code',
      args: { code: PROGRAM, description: 'early' },
    });
    off();
    expect(result.ok).toBe(true);
    expect(events).toMatchObject([
      { type: 'call-start', seq: 1, name: 'gate.wait', args: { n: 1 } },
      { type: 'call-end', seq: 1, ok: true, result: { n: 1 } },
      { type: 'call-start', seq: 2, args: { n: 2 } },
      { type: 'call-end', seq: 2, ok: true, result: { n: 2 } },
    ]);
  });
});
