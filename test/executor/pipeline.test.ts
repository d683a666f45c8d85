import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createRuntime,
  defineTool,
  type ContentBlock,
  type OutcomeSummary,
  type ToolDefinition,
} from '../../src/index.js';
import { deferred, echo, recorder } from './fixtures.js';

describe('the pipeline', () => {
  it('runs the stages in order: create, validate, pre-execute, guards, approval, execute, post-execute, finalize', async () => {
    const r = recorder();
    const tool = { ...echo, execute: (a: { text: string }) => (r.mark('body'), a) };
    const rt = await createRuntime({
      tools: [tool],
      hooks: {
        preExecute: () => (r.mark('pre'), { action: 'ask' }),
        guards: () => void r.mark('guard'),
        execute: async (_c, next) => {
          r.mark('mw:before');
          const o = await next();
          r.mark('mw:after');
          return o;
        },
        postExecute: () => void r.mark('post'),
      },
      approver: () => (r.mark('approve'), 'allowed-once'),
      finalizeContent: (c) => (r.mark('finalize'), c),
    });
    const res = await rt.execute({ name: 'echo', args: { text: 'x' } });
    expect(res.ok).toBe(true);
    expect(r.seen).toEqual([
      'pre',
      'guard',
      'approve',
      'mw:before',
      'body',
      'mw:after',
      'post',
      'finalize',
    ]);
    expect(res.meta.stages).toEqual([
      'create',
      'validate',
      'pre-execute',
      'guards',
      'approval',
      'execute',
      'post-execute',
      'finalize',
    ]);
  });

  it.each([
    ['undefined', { a: undefined }],
    ['a function', { a: () => 1 }],
    ['BigInt', { a: 1n }],
    ['NaN', { a: Number.NaN }],
    ['Infinity', [Infinity]],
    ['a class instance', { a: new Date() }],
    ['a symbol key', { [Symbol('s')]: 1 }],
  ])('arguments containing %s are INVALID_ARGS before any hook', async (_label, args) => {
    const r = recorder();
    const rt = await createRuntime({
      tools: [echo],
      hooks: { preExecute: () => void r.mark('pre') },
    });
    const res = await rt.execute({ name: 'echo', args });
    expect(!res.ok && res.error.code).toBe('INVALID_ARGS');
    expect(r.seen).toEqual([]);
  });

  it('cyclic arguments are INVALID_ARGS', async () => {
    const rt = await createRuntime({ tools: [echo] });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const res = await rt.execute({ name: 'echo', args: cyclic });
    expect(!res.ok && res.error.message).toContain('cycle');
  });

  it('a value whose parts are shared level after level is refused at once, never walked whole', async () => {
    // 40 levels, each naming the next twice: 2^40 values as JSON writes it.
    let shared: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < 40; i++) shared = { a: shared, b: shared };
    const dag = defineTool({
      name: 'dag',
      description: 'returns a shared graph',
      input: z.object({}),
      execute: () => shared,
    });
    const rt = await createRuntime({ tools: [echo, dag] });
    const out = await rt.execute({ name: 'dag', args: {} });
    expect(!out.ok && out.error.code).toBe('INVALID_TOOL_OUTPUT');
    expect(!out.ok && out.error.message).toContain('more than 1000000 values');
    const args = await rt.execute({ name: 'echo', args: { text: 'x', extra: shared } });
    expect(!args.ok && args.error.code).toBe('INVALID_ARGS');
    // A value that shares parts but stays small is still JSON.
    const part = { n: 1 };
    expect(await rt.execute({ name: 'echo', args: { text: 'x', a: part, b: part } })).toMatchObject(
      {
        ok: true,
        value: { text: 'x' },
      },
    );
  });

  it('schema validation reports the failing paths (zod and JSON Schema)', async () => {
    const js = defineTool({
      name: 'js',
      description: '',
      input: {
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 1 },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['n'],
        additionalProperties: false,
      },
      execute: () => 1,
    });
    const rt = await createRuntime({ tools: [echo, js] });
    const a = await rt.execute({ name: 'echo', args: { text: 5 } });
    expect(!a.ok && a.error.code).toBe('INVALID_ARGS');
    expect(!a.ok && a.error.message).toContain('$.text');
    const b = await rt.execute({ name: 'js', args: { n: 0, tags: ['a', 2], extra: true } });
    expect(!b.ok && b.error.code).toBe('INVALID_ARGS');
    const msg = !b.ok ? b.error.message : '';
    expect(msg).toContain('$.n');
    expect(msg).toContain('$.tags[1]');
    expect(msg).toContain('$.extra');
    const c = await rt.execute({ name: 'js', args: {} });
    expect(!c.ok && c.error.message).toContain('$.n');
  });

  it('a body throw is TOOL_ERROR with the message kept and no host stack', async () => {
    const bad = defineTool({
      name: 'bad',
      description: '',
      input: {},
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const rt = await createRuntime({ tools: [bad] });
    const res = await rt.execute({ name: 'bad', args: {} });
    expect(!res.ok && res.error).toMatchObject({ code: 'TOOL_ERROR', message: 'disk on fire' });
    const text = JSON.stringify(res);
    expect(text).not.toContain('pipeline.test');
    expect(text).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it('whatever a body or a middleware throws settles TOOL_ERROR at once; nothing of it can throw again', async () => {
    const getterThrows = new Error('x');
    Object.defineProperty(getterThrows, 'message', {
      get() {
        throw getterThrows;
      },
    });
    const numeric = Object.assign(new Error(), { message: 42 as unknown as string });
    const trap = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
        get() {
          throw new Error('trap');
        },
      },
    );
    const toStringThrows = {
      toString() {
        throw new Error('no');
      },
      toJSON() {
        throw new Error('no');
      },
    };
    const thrown: Record<string, unknown> = {
      getter: getterThrows,
      numeric,
      trap,
      toString: toStringThrows,
      string: 'plain text',
      json: { reason: 'quota' },
    };
    const tools = Object.keys(thrown).map((name) =>
      defineTool({
        name,
        description: '',
        input: {},
        execute: () => {
          throw thrown[name];
        },
      }),
    );
    const inMiddleware = defineTool({ name: 'mw', description: '', input: {}, execute: () => 1 });
    const rt = await createRuntime({
      tools: [...tools, inMiddleware],
      defaultTimeoutMs: 60_000,
      hooks: {
        execute: (ctx, next) => {
          if (ctx.call.name === 'mw') throw getterThrows;
          return next();
        },
      },
    });
    const messages: Record<string, string> = {};
    for (const name of [...Object.keys(thrown), 'mw']) {
      const started = Date.now();
      const res = await rt.execute({ name, args: {} });
      expect(!res.ok && res.error.code, name).toBe('TOOL_ERROR');
      expect(Date.now() - started, name).toBeLessThan(30_000); // not the time limit's settlement
      messages[name] = res.ok ? '' : res.error.message;
    }
    expect(messages).toEqual({
      getter: 'a thrown value that could not be read',
      numeric: 'Error',
      trap: 'a thrown value that could not be read',
      toString: 'a thrown value that could not be read',
      string: 'plain text',
      json: '{"reason":"quota"}',
      mw: 'a thrown value that could not be read',
    });
    await rt.close();
  });

  it('a render, finalizer or post-execute hook that returns no content blocks leaves valid content', async () => {
    const shapes: unknown[] = [
      undefined,
      42,
      [{ type: 'text' }],
      [{ type: 'text', text: 1 }],
      [{ type: 'image', data: 'x' }],
      [null],
      { length: 1, 0: { type: 'text', text: 'x' } },
    ];
    const tools = shapes.map((shape, i) =>
      defineTool({
        name: `r${i}`,
        description: '',
        input: {},
        execute: () => ({ n: i }),
        render: () => shape as string,
      }),
    );
    const finalized = defineTool({
      name: 'fin',
      description: '',
      input: {},
      execute: () => ({ n: 'fin' }),
      finalizeContent: () => [{ type: 'text' }] as unknown as ContentBlock[],
    });
    const posted = defineTool({ name: 'post', description: '', input: {}, execute: () => 'v' });
    const rt = await createRuntime({
      tools: [...tools, finalized, posted],
      hooks: {
        postExecute: (c) =>
          c.call.name === 'post'
            ? { action: 'replace', content: [{ bogus: true }] as unknown as ContentBlock[] }
            : undefined,
      },
    });
    for (let i = 0; i < shapes.length; i++) {
      const res = await rt.execute({ name: `r${i}`, args: {} });
      expect(res.content, `shape ${i}`).toEqual([
        { type: 'text', text: JSON.stringify({ n: i }, null, 2) },
      ]);
    }
    expect((await rt.execute({ name: 'fin', args: {} })).content).toEqual([
      { type: 'text', text: JSON.stringify({ n: 'fin' }, null, 2) },
    ]);
    // The hook's content is not blocks: the tool's own rendering of its value stays.
    expect((await rt.execute({ name: 'post', args: {} })).content).toEqual([
      { type: 'text', text: 'v' },
    ]);
    // A well-formed list is copied: changing it after the call changes nothing.
    const blocks: ContentBlock[] = [{ type: 'text', text: 'shown' }];
    const copied = defineTool({
      name: 'copied',
      description: '',
      input: {},
      execute: () => 1,
      render: () => blocks,
    });
    const rt2 = await createRuntime({ tools: [copied] });
    const res = await rt2.execute({ name: 'copied', args: {} });
    blocks[0] = { type: 'text', text: 'changed' };
    expect(res.content).toEqual([{ type: 'text', text: 'shown' }]);
    await rt.close();
    await rt2.close();
  });

  it('output must be JSON and match the output schema (INVALID_TOOL_OUTPUT)', async () => {
    const notJson = defineTool({
      name: 'nj',
      description: '',
      input: {},
      execute: () => ({ when: new Date() }),
    });
    // A plain object: defineTool would reject this body at compile time (test/tools/define-tool-types.test.ts).
    const wrong: ToolDefinition = {
      name: 'wrong',
      description: '',
      input: {},
      output: z.object({ n: z.number() }),
      execute: () => ({ n: 'one' }),
    };
    const rt = await createRuntime({ tools: [notJson, wrong] });
    for (const name of ['nj', 'wrong']) {
      const res = await rt.execute({ name, args: {} });
      expect(!res.ok && res.error.code).toBe('INVALID_TOOL_OUTPUT');
    }
  });

  it('finalizeContent runs exactly once per outcome, failures included', async () => {
    const counts = new Map<string, number>();
    const finalize = (c: ContentBlock[], o: OutcomeSummary) => {
      const key = o.code ?? 'OK';
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return c;
    };
    const slow = defineTool({
      name: 'slow',
      description: '',
      input: {},
      timeoutMs: 10,
      execute: () => new Promise((r) => setTimeout(r, 50)),
    });
    const bad = defineTool({
      name: 'bad',
      description: '',
      input: {},
      execute: () => {
        throw new Error('x');
      },
    });
    const rt = await createRuntime({
      tools: [echo, slow, bad],
      finalizeContent: finalize,
      hooks: {
        preExecute: (c) =>
          c.call.args && (c.call.args as { deny?: boolean }).deny ? { action: 'deny' } : undefined,
      },
    });
    await rt.execute({ name: 'echo', args: { text: 'ok' } });
    await rt.execute({ name: 'echo', args: { nope: 1 } });
    await rt.execute({ name: 'missing', args: {} });
    await rt.execute({ name: 'slow', args: {} });
    await rt.execute({ name: 'bad', args: {} });
    await rt.execute({ name: 'slow', args: { deny: true } });
    expect(Object.fromEntries(counts)).toEqual({
      OK: 1,
      INVALID_ARGS: 1,
      UNKNOWN_TOOL: 1,
      TOOL_TIMEOUT: 1,
      TOOL_ERROR: 1,
      DENIED: 1,
    });
  });

  it('abort after the body started: a success becomes ABORTED, and the started body is awaited first', async () => {
    const gate = deferred();
    let bodyDone = false;
    const t = defineTool({
      name: 't',
      description: '',
      input: {},
      execute: async () => {
        await gate.promise;
        bodyDone = true;
        return 1;
      },
    });
    const rt = await createRuntime({ tools: [t] });
    const ac = new AbortController();
    const pending = rt.execute({ name: 't', args: {} }, { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    setTimeout(() => gate.resolve(), 20);
    const res = await pending;
    expect(bodyDone).toBe(true);
    expect(!res.ok && res.error.code).toBe('ABORTED');
  });

  it('abort keeps a tool error, and a time-out keeps TOOL_TIMEOUT', async () => {
    const failing = defineTool({
      name: 'failing',
      description: '',
      input: {},
      execute: (_a, ctx) =>
        new Promise((_r, reject) =>
          ctx.signal.addEventListener('abort', () => reject(new Error('interrupted'))),
        ),
    });
    const slow = defineTool({
      name: 'slow',
      description: '',
      input: {},
      timeoutMs: 20,
      execute: (_a, ctx) => new Promise((r) => ctx.signal.addEventListener('abort', () => r(1))),
    });
    const rt = await createRuntime({ tools: [failing, slow] });
    const ac = new AbortController();
    const pending = rt.execute({ name: 'failing', args: {} }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 5);
    const res = await pending;
    expect(!res.ok && res.error).toMatchObject({ code: 'TOOL_ERROR', message: 'interrupted' });
    const timed = await rt.execute({ name: 'slow', args: {} });
    expect(!timed.ok && timed.error.code).toBe('TOOL_TIMEOUT');
  });

  it('a signal first read after the abort or the time-out is already aborted, with the reason; hook and body share it', async () => {
    const seen: { name: string; aborted: boolean; reason: unknown }[] = [];
    const bodySignals = new Map<string, AbortSignal>();
    const hookSignals = new Map<string, AbortSignal>();
    const late = (name: string, timeoutMs?: number) =>
      defineTool({
        name,
        description: '',
        input: {},
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        // Reads nothing of its context until the abort or the time limit has passed.
        execute: async (_a, ctx) => {
          await new Promise((r) => setTimeout(r, 60));
          const s = ctx.signal;
          bodySignals.set(name, s);
          seen.push({ name, aborted: s.aborted, reason: s.reason });
          return 1;
        },
      });
    const rt = await createRuntime({
      tools: [late('aborted'), late('timed', 10), late('untouched')],
      abortGraceMs: 1_000,
      hooks: {
        execute: async (c, next) => {
          const out = await next();
          hookSignals.set(c.tool.name, c.signal); // read after the body: the same object
          return out;
        },
      },
    });
    const ac = new AbortController();
    const pending = rt.execute({ name: 'aborted', args: {} }, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('caller gave up')), 5);
    expect(((await pending) as { ok: boolean }).ok).toBe(false);
    const timed = await rt.execute({ name: 'timed', args: {} });
    expect(!timed.ok && timed.error.code).toBe('TOOL_TIMEOUT');
    expect((await rt.execute({ name: 'untouched', args: {} })).ok).toBe(true);
    const by = Object.fromEntries(seen.map((s) => [s.name, s]));
    expect(by.aborted).toMatchObject({ aborted: true });
    expect((by.aborted?.reason as Error).message).toBe('caller gave up');
    expect(by.timed).toMatchObject({ aborted: true });
    expect((by.timed?.reason as Error).message).toBe('tool time limit exceeded');
    expect(by.untouched).toMatchObject({ aborted: false, reason: undefined });
    // The hook read its context's signal after the body: the same signal the body was given.
    await vi.waitFor(() => expect(hookSignals.size).toBe(3));
    for (const name of ['aborted', 'timed', 'untouched']) {
      expect(bodySignals.get(name), name).toBeInstanceOf(AbortSignal);
      expect(hookSignals.get(name), name).toBe(bodySignals.get(name));
    }
  });

  it('a body that ignores abort is abandoned after abortGraceMs (the call still settles)', async () => {
    const stuck = defineTool({
      name: 'stuck',
      description: '',
      input: {},
      execute: () => new Promise(() => {}),
    });
    const rt = await createRuntime({ tools: [stuck], abortGraceMs: 20 });
    const ac = new AbortController();
    const pending = rt.execute({ name: 'stuck', args: {} }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 5);
    const res = await pending;
    expect(!res.ok && res.error.code).toBe('ABORTED');
  });

  it('execute middleware: a double next() is refused and the body runs once', async () => {
    let runs = 0;
    const t = defineTool({ name: 't', description: '', input: {}, execute: () => ++runs });
    const rt = await createRuntime({
      tools: [t],
      hooks: {
        execute: async (_c, next) => {
          await next();
          return next();
        },
      },
    });
    const res = await rt.execute({ name: 't', args: {} });
    expect(!res.ok && res.error.code).toBe('INTERNAL_ERROR');
    expect(!res.ok && res.error.message).toContain('next()');
    expect(runs).toBe(1);
  });

  it('hooks see frozen arguments and cannot rewrite what the body receives', async () => {
    let got: unknown;
    let frozen = false;
    const t = defineTool({
      name: 't',
      description: '',
      input: { type: 'object' },
      execute: (a) => ((got = a), 1),
    });
    const rt = await createRuntime({
      tools: [t],
      hooks: {
        preExecute: (ctx) => {
          frozen = Object.isFrozen(ctx.call.args);
          try {
            (ctx.call.args as Record<string, unknown>).x = 'rewritten';
          } catch {
            // frozen
          }
        },
      },
    });
    await rt.execute({ name: 't', args: { x: 'original' } });
    expect(frozen).toBe(true);
    expect(got).toEqual({ x: 'original' });
  });

  it('hooks see a deep, frozen copy of nested arguments; an own __proto__ key stays data', async () => {
    let seen: unknown;
    let got: unknown;
    const t = defineTool({
      name: 't',
      description: '',
      input: { type: 'object' },
      execute: (a) => ((got = a), 1),
    });
    const rt = await createRuntime({
      tools: [t],
      hooks: { preExecute: (ctx) => void (seen = ctx.call.args) },
    });
    const args = JSON.parse('{"list":[{"a":1},[2,null]],"__proto__":{"polluted":true}}') as object;
    await rt.execute({ name: 't', args });
    expect(seen).not.toBe(args);
    expect(seen).toEqual(args);
    const view = seen as { list: [{ a: number }, unknown[]] };
    expect(Object.isFrozen(view.list)).toBe(true);
    expect(Object.isFrozen(view.list[0])).toBe(true);
    expect(Object.isFrozen(view.list[1])).toBe(true);
    expect(Object.getPrototypeOf(view)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(view, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.isFrozen(args)).toBe(false);
    // The tool gets its own copy, the same JSON, its __proto__ key data as well.
    expect(got).not.toBe(args);
    expect(got).toEqual(args);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toEqual({ polluted: true });
  });

  it("a value whose proxy traps throw is INVALID_TOOL_OUTPUT (the tool's fault), never an internal error", async () => {
    const values: Record<string, () => unknown> = {
      proto: () =>
        new Proxy(
          {},
          {
            getPrototypeOf() {
              throw new Error('trap proto');
            },
          },
        ),
      keys: () =>
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('trap keys');
            },
          },
        ),
      length: () =>
        new Proxy([], {
          get(target, key) {
            if (key === 'length') throw new Error('trap length');
            return Reflect.get(target, key) as unknown;
          },
        }),
    };
    const rt = await createRuntime({
      tools: Object.entries(values).map(([name, make]) =>
        defineTool({ name, description: '', input: { type: 'object' }, execute: make }),
      ),
    });
    for (const [name, trap] of [
      ['proto', 'trap proto'],
      ['keys', 'trap keys'],
      ['length', 'trap length'],
    ]) {
      const r = await rt.execute({ name: name as string, args: {} });
      expect(!r.ok && r.error).toMatchObject({
        code: 'INVALID_TOOL_OUTPUT',
        message: `${name} returned a value that cannot be read: ${trap}`,
      });
    }
  });

  it('a call owns its arguments and its value: neither the caller nor the tool can change the other', async () => {
    const state = { items: [{ n: 1 }] };
    const t = defineTool({
      name: 'state',
      description: '',
      input: { type: 'object' },
      execute: (a: Record<string, unknown>) => {
        (a.list as unknown[]).push('added by the tool');
        // Returns its own state, then changes it after the call has settled.
        setImmediate(() => state.items.push({ n: 99 }));
        return state;
      },
    });
    const rt = await createRuntime({ tools: [t] });
    const args = { list: ['from the caller'] };
    const first = await rt.execute({ name: 'state', args });
    expect(args).toEqual({ list: ['from the caller'] });
    expect(first.ok && first.value).toEqual({ items: [{ n: 1 }] });
    // The caller changes the value it got: the tool's state is not touched.
    if (first.ok) (first.value as { items: unknown[] }).items.length = 0;
    expect(state.items[0]).toEqual({ n: 1 });
    await new Promise((r) => setImmediate(r));
    // The tool changed its state after returning: the first call's value is as it returned it.
    expect(state.items).toHaveLength(2);
    const second = await rt.execute({ name: 'state', args: { list: [] } });
    expect(second.ok && second.value).toEqual({ items: [{ n: 1 }, { n: 99 }] });
  });

  it('a throwing pre-execute hook or guard is contained as a denial', async () => {
    const rt = await createRuntime({
      tools: [echo],
      hooks: {
        preExecute: () => {
          throw new Error('hook bug');
        },
      },
    });
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res.ok && res.error).toMatchObject({ code: 'DENIED', reason: 'policy' });
    const rt2 = await createRuntime({
      tools: [echo],
      hooks: { guards: () => Promise.reject(new Error('guard bug')) },
    });
    const res2 = await rt2.execute({ name: 'echo', args: { text: 'a' } });
    expect(!res2.ok && res2.error).toMatchObject({ code: 'DENIED', reason: 'guard' });
  });

  it('post-execute hooks replace value or content, block, and add context', async () => {
    const rt = await createRuntime({ tools: [echo] });
    const replacement = { text: 'replaced' };
    const off = rt.use({ postExecute: () => ({ action: 'replace', value: replacement }) });
    const a = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(a.ok && a.value).toEqual({ text: 'replaced' });
    // The result holds a copy of the hook's value, as it holds a copy of a tool's.
    expect(a.ok && a.value).not.toBe(replacement);
    expect(a.content[0]).toEqual({
      type: 'text',
      text: JSON.stringify({ text: 'replaced' }, null, 2),
    });
    off();
    const off2 = rt.use({
      postExecute: [
        () => ({ action: 'replace', content: 'short' }),
        () => ({ action: 'context', context: 'note: cached' }),
      ],
    });
    const b = await rt.execute({ name: 'echo', args: { text: 'b' } });
    expect(b.ok && b.value).toEqual({ text: 'b' });
    expect(b.content).toEqual([
      { type: 'text', text: 'short' },
      { type: 'text', text: 'note: cached' },
    ]);
    expect(b.meta.additionalContext).toEqual(['note: cached']);
    off2();
    rt.use({ postExecute: () => ({ action: 'block', reason: 'secret' }) });
    const c = await rt.execute({ name: 'echo', args: { text: 'c' } });
    expect(!c.ok && c.error).toMatchObject({
      code: 'DENIED',
      reason: 'blocked',
      message: 'secret',
    });
  });

  it('emits tool/call and tool/result for every call; failing listeners never break a call; audit writes JSON lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'isocode-audit-'));
    const path = join(dir, 'audit.jsonl');
    const rt = await createRuntime({
      tools: [echo],
      audit: { path },
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    rt.on(() => Promise.reject(new Error('async listener bug')));
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } });
    expect(res.ok).toBe(true);
    await rt.execute({ name: 'nope', args: {} });
    await rt.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; ok?: boolean; code?: string; args?: unknown });
    expect(lines.map((l) => l.type)).toEqual([
      'tool/call',
      'tool/result',
      'tool/call',
      'tool/result',
    ]);
    expect(lines[0]?.args).toEqual({ text: 'a' });
    expect(lines[3]).toMatchObject({ ok: false, code: 'UNKNOWN_TOOL' });
  });

  it('execute never throws or rejects: null options, an unreadable call or options, an odd scope', async () => {
    // Scopes named as a non-string scope might be read ("5", "number"): none is reached by one.
    const rt = await createRuntime({
      tools: [echo],
      scopes: { default: { mode: 'native' }, '5': { mode: 'native' }, number: { mode: 'native' } },
    });
    const unreadable = {
      get name(): string {
        throw new Error('boom');
      },
      args: {},
    };
    const badOptions = {
      get scope(): string {
        throw new Error('boom');
      },
    };
    const cases: Array<() => Promise<{ ok: boolean; error?: { code: string } }>> = [
      () => rt.execute({ name: 'echo', args: { text: 'hi' } }, null as never),
      () => rt.execute(unreadable),
      () => rt.execute({ name: 'echo', args: { text: 'hi' } }, badOptions),
      () => rt.execute({ name: 'echo', args: { text: 'hi' } }, { scope: 5 as never }),
      () => rt.execute({ name: 'echo', args: { text: 'hi' } }, { signal: {} as never }),
    ];
    const codes = [];
    for (const run of cases) {
      let settled: { ok: boolean; error?: { code: string } } | undefined;
      expect(() => {
        void run().then((r) => (settled = r));
      }).not.toThrow();
      await vi.waitFor(() => expect(settled).toBeDefined());
      codes.push(settled?.ok ? 'ok' : settled?.error?.code);
    }
    expect(codes).toEqual(['ok', 'INVALID_ARGS', 'INVALID_SCOPE', 'INVALID_SCOPE', 'ok']);
    await rt.close();
  });

  it('an unknown scope is INVALID_SCOPE, not an exception', async () => {
    const rt = await createRuntime({ tools: [echo] });
    const res = await rt.execute({ name: 'echo', args: { text: 'a' } }, { scope: 'ghost' });
    expect(!res.ok && res.error.code).toBe('INVALID_SCOPE');
  });
});
