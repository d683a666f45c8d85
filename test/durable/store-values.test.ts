/**
 * Hostile values round-trip exactly through every store kind: program, description, arguments,
 * results, event data, errors, limits, approval reasons and deciders, idempotency keys — arbitrary
 * UTF-16 (U+0000, lone surrogates, C0/C1 controls, U+FFFF, astral characters).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json.js';
import type { Fence } from '../../src/durable/store.js';
import { storeKinds } from './stores.js';

const EXPLICIT = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff x \ud800',
  '\u0001\u001f\u007f\u0080\u009f',
  '\uffff\ufffe',
  '😀 \u{10ffff}',
  '\u2028\u2029\u202e',
  '\\u0000 "quoted" \'',
  '',
];

/** Strings of any UTF-16 code units (lone surrogates included) or any code points. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(...EXPLICIT),
);
const json: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    hostile,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(hostile, tie('v'), { maxKeys: 3 }),
  ),
})).v;

for (const kind of storeKinds()) {
  describe.skipIf(kind.skip !== undefined)(`run store values: ${kind.name}`, () => {
    beforeAll(() => kind.ready(), 180_000);
    afterAll(() => kind.close());

    it('every hostile string and JSON value reads back exactly', async () => {
      const store = await kind.open();
      let n = 0;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              program: hostile,
              description: hostile,
              key: hostile,
              args: json,
              result: json,
              data: json,
              reason: hostile,
              decider: hostile,
            }),
            async (v) => {
              const id = `v${n++}`;
              const scope = `s${id}`; // a scope of its own: keys may repeat between cases
              const { run } = await store.createRun({
                id,
                scope,
                program: v.program,
                description: v.description,
                limits: v.args,
                idempotencyKey: v.key,
                lease: { owner: 'A', expiresAt: Date.now() + 600_000 },
              });
              expect(run.program).toBe(v.program);
              const f: Fence = { owner: 'A', epoch: run.epoch };
              await store.recordArrival({ runId: id, key: 'k', name: 't', args: v.args }, f);
              await store.finishCall(id, 'k', 'ok', v.result);
              await store.createApproval({
                id: `a${id}`,
                runId: id,
                callKey: 'k',
                tool: 't',
                args: v.args,
                scope,
                reason: v.reason,
              });
              await store.decideApproval(`a${id}`, 'rejected', v.decider);
              await store.appendEvent(id, 'log', v.data);
              await store.settleRun(id, f, {
                status: 'failed',
                result: v.result,
                error: v.data,
              });
              const back = await store.getRun(id);
              expect(back?.program).toBe(v.program);
              expect(back?.description).toBe(v.description);
              expect(back?.idempotencyKey).toBe(v.key);
              expect(back?.limits).toEqual(v.args);
              expect(back?.result).toEqual(v.result);
              expect(back?.error).toEqual(v.data);
              const call = await store.getCall(id, 'k');
              expect(call?.args).toEqual(v.args);
              expect(call?.result).toEqual(v.result);
              const approval = await store.getApproval(`a${id}`);
              expect(approval?.reason).toBe(v.reason);
              expect(approval?.decidedBy).toBe(v.decider);
              expect(approval?.args).toEqual(v.args);
              const events = await store.listEvents(id);
              expect(events.find((e) => e.type === 'log')?.data).toEqual(v.data);
              // The result event the store writes carries the hostile values exactly.
              expect(events.at(-1)).toMatchObject({ type: 'result' });
              expect(events.at(-1)?.data).toEqual({
                status: 'failed',
                result: v.result,
                error: v.data,
              });
              // The approval's own events, asked then decided, carry its texts exactly too.
              expect(events.filter((e) => e.type === 'approval').map((e) => e.data)).toMatchObject([
                { status: 'pending', reason: v.reason, decidedBy: null },
                { status: 'rejected', reason: v.reason, decidedBy: v.decider },
              ]);
              expect((await store.listRuns({ scope, idempotencyKey: v.key }))[0]?.id).toBe(id);
            },
          ),
          { numRuns: 60 },
        );
        // the explicit cases, one by one, as description and program
        for (const [i, text] of EXPLICIT.entries()) {
          const id = `e${i}`;
          await store.createRun({ id, scope: 's', program: text, description: text });
          expect(await store.getRun(id)).toMatchObject({ program: text, description: text });
        }
      } finally {
        await store.close();
      }
    }, 180_000);
  });
}
