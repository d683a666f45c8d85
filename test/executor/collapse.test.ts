import { describe, expect, it } from 'vitest';
import {
  createRuntime,
  type ContentBlock,
  type ParentToken,
  type ToolResult,
} from '../../src/index.js';
import { scriptedRunner } from '../../src/testing.js';
import { codeRuntime, deferred, echo, recorder, run } from './fixtures.js';

describe('the code-mode collapse is enforced by the executor', () => {
  it('a model-direct native call under code is UNKNOWN_TOOL, and no hook, approver or guard sees it', async () => {
    const r = recorder();
    const rt = await codeRuntime(() => null, [echo], {
      hooks: {
        preExecute: () => {
          r.mark('pre');
          return { action: 'ask' };
        },
        guards: () => void r.mark('guard'),
        execute: (_ctx, next) => {
          r.mark('execute');
          return next();
        },
        postExecute: () => void r.mark('post'),
      },
      approver: () => {
        r.mark('approver');
        return 'allowed-once';
      },
    });
    const res = await rt.execute({ name: 'echo', args: { text: 'hi' } });
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.error.code).toBe('UNKNOWN_TOOL');
    expect(res.error.message).toContain('run_code');
    expect(res.error.message).toContain('tools.echo(');
    expect(r.seen).toEqual([]);
    expect(res.meta.stages).toEqual(['create', 'finalize']);
    await rt.close();
  });

  it.each([
    ['a hyphenated name', ['get-user'], 'get-user', 'tools["get-user"]', ['get-user']],
    [
      'a dotted-hyphenated name',
      ['fs.read-file'],
      'fs.read-file',
      'tools.fs["read-file"]',
      ['fs', 'read-file'],
    ],
    ['a dotted name', ['fs.read_file'], 'fs.read_file', 'tools.fs.read_file', ['fs', 'read_file']],
    [
      'a name under a tool of its prefix',
      ['kv', 'kv.get'],
      'kv.get',
      'tools["kv.get"]',
      ['kv.get'],
    ],
  ])(
    'the refusal of %s names the route exactly as the SDK binds it',
    async (_what, names, called, route, path) => {
      const tools = names.map((name) => ({ ...echo, name }));
      const rt = await codeRuntime(() => null, tools);
      const res = await rt.execute({ name: called, args: { text: 'x' } });
      expect(!res.ok && res.error.code).toBe('UNKNOWN_TOOL');
      expect(!res.ok && res.error.message).toContain(` as ${route}(...).`);
      // The SDK the program is given binds the tool at the same path.
      expect(rt.sdk().bindings.find((b) => b.tool === called)?.path).toEqual(path);
      await rt.close();
    },
  );

  it('the same tool succeeds as a nested call carrying a valid parent token', async () => {
    let inner: ToolResult | undefined;
    const rt = await codeRuntime(async (api) => {
      inner = await api.call('echo', { text: 'from program' });
      return inner.ok ? inner.value : null;
    });
    const res = await rt.execute(run());
    expect(res.ok).toBe(true);
    expect(inner?.ok).toBe(true);
    if (res.ok)
      expect(res.value).toMatchObject({
        result: { text: 'from program' },
        calls: [{ name: 'echo', ok: true }],
      });
    expect(inner?.meta.parentId).toBe(res.meta.callId);
    await rt.close();
  });

  it('run_code itself passes the collapse under code, and is absent under native', async () => {
    const code = await codeRuntime(() => 42);
    const ok = await code.execute(run());
    expect(ok.ok && ok.value).toMatchObject({ result: 42 });
    const native = await createRuntime({
      tools: [echo],
      codeMode: { runner: scriptedRunner(() => 1) },
    });
    const res = await native.execute(run());
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.code).toBe('UNKNOWN_TOOL');
    await Promise.all([code.close(), native.close()]);
  });

  it('native and both modes execute direct calls unchanged', async () => {
    const rt = await createRuntime({
      tools: [echo],
      scopes: { both: { mode: 'both' }, native: { mode: 'native' } },
      codeMode: { runner: scriptedRunner(() => 1) },
    });
    for (const scope of ['default', 'native', 'both']) {
      const res = await rt.execute({ name: 'echo', args: { text: scope } }, { scope });
      expect(res.ok && res.value).toEqual({ text: scope });
    }
    const viaRun = await rt.execute(run(), { scope: 'both' });
    expect(viaRun.ok).toBe(true);
    await rt.close();
  });

  it('a pre-aborted collapsed call is ABORTED_BEFORE_DISPATCH, with the visible tool finalizer applied', async () => {
    let finalized = 0;
    const tool = { ...echo, finalizeContent: (c: ContentBlock[]) => (finalized++, c) };
    const rt = await codeRuntime(() => null, [tool]);
    const ac = new AbortController();
    ac.abort();
    const res = await rt.execute({ name: 'echo', args: { text: 'x' } }, { signal: ac.signal });
    expect(!res.ok && res.error.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(finalized).toBe(1);
    await rt.close();
  });

  it('a collapsed call with non-JSON arguments reports INVALID_ARGS, not UNKNOWN_TOOL', async () => {
    const rt = await codeRuntime(() => null);
    const res = await rt.execute({ name: 'echo', args: { text: undefined } });
    expect(!res.ok && res.error.code).toBe('INVALID_ARGS');
    await rt.close();
  });

  it('a forged parent token is refused with INVALID_PARENT before any hook runs', async () => {
    const r = recorder();
    const rt = await codeRuntime(() => null, [echo], {
      hooks: { preExecute: () => void r.mark('pre') },
    });
    const res = await rt.execute(
      { name: 'echo', args: { text: 'x' } },
      { parent: 'ptk_forged' as ParentToken },
    );
    expect(!res.ok && res.error.code).toBe('INVALID_PARENT');
    expect(r.seen).toEqual([]);
    await rt.close();
  });

  it('a parent token expires when its run_code execution settles', async () => {
    let token: ParentToken | undefined;
    const rt = await codeRuntime((api) => {
      token = api.parentToken;
      return null;
    });
    expect((await rt.execute(run())).ok).toBe(true);
    const late = await rt.execute({ name: 'echo', args: { text: 'late' } }, { parent: token });
    expect(!late.ok && late.error.code).toBe('INVALID_PARENT');
    await rt.close();
  });

  it('a token from another runtime (foreign) or another scope is refused', async () => {
    let token: ParentToken | undefined;
    const hold = deferred();
    const a = await codeRuntime(async (api) => {
      token = api.parentToken;
      await hold.promise;
      return null;
    });
    const b = await codeRuntime(() => null);
    b.defineScope('other', { mode: 'code' });
    const pending = a.execute(run());
    await new Promise((r) => setTimeout(r, 10));
    const foreign = await b.execute({ name: 'echo', args: { text: 'x' } }, { parent: token });
    expect(!foreign.ok && foreign.error.code).toBe('INVALID_PARENT');
    a.defineScope('other', { mode: 'code' });
    const otherScope = await a.execute(
      { name: 'echo', args: { text: 'x' } },
      { parent: token, scope: 'other' },
    );
    expect(!otherScope.ok && otherScope.error.code).toBe('INVALID_PARENT');
    const sameScope = await a.execute({ name: 'echo', args: { text: 'x' } }, { parent: token });
    expect(sameScope.ok).toBe(true);
    hold.resolve();
    await pending;
    await Promise.all([a.close(), b.close()]);
  });

  it('a program cannot call run_code recursively', async () => {
    let inner: ToolResult | undefined;
    const rt = await codeRuntime(async (api) => {
      inner = await api.call('run_code', { code: 'return 1', description: 'again' });
      return null;
    });
    await rt.execute(run());
    expect(!inner?.ok && inner?.error.code).toBe('UNKNOWN_TOOL');
    await rt.close();
  });

  it('the wire shows only run_code under code while schemas() keeps the full catalog', async () => {
    const rt = await codeRuntime(() => null);
    expect(rt.wireSchemas().map((t) => t.name)).toEqual(['run_code']);
    expect(rt.schemas().map((t) => t.name)).toEqual(['echo', 'fs.write']);
    await rt.close();
  });
});
