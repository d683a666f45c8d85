/**
 * The isolates' V8 startup snapshot (decision 039): a context made from it must be the context the
 * bootstrap script makes, as far as any program can tell — every object reachable from the global,
 * every property's flags and primitive value, every prototype link, every object's extensibility —
 * and must not share what has to differ between runs (the random number generator's state, the
 * clock). The rest of the suite runs on the snapshot (it is the default) wherever the engine
 * supports one: Node 22, 24 and 26 (the CI matrix); on Node 20 every isolate runs the bootstrap
 * script, and these tests check that it does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxIsolate, releaseContext } from '../../src/sandbox/sandbox-isolate.js';
import {
  SNAPSHOT_SUPPORTED,
  snapshotFailureReason,
  type BootstrapMode,
} from '../../src/sandbox/isolate-snapshot.js';
import { SandboxPool } from '../../src/sandbox/index.js';
import { toolIndex } from '../../src/sandbox/bindings.js';
import { bindingsFor, expectOk, recordingDispatch, runBody } from './helpers.js';

/**
 * A description of everything reachable from `globalThis` without calling guest-visible code (no
 * getter is invoked): objects are numbered in a breadth-first walk over sorted own keys, so two
 * contexts with the same shape give the same text.
 */
const FINGERPRINT = `(() => {
  const ids = new Map();
  const queue = [];
  const out = [];
  const keyText = (k) => typeof k === 'symbol' ? '@' + String(k) : k;
  const ref = (v) => {
    if ((typeof v !== 'object' && typeof v !== 'function') || v === null) {
      return typeof v === 'symbol' ? 'symbol:' + String(v) : typeof v + ':' + String(v);
    }
    let id = ids.get(v);
    if (id === undefined) { id = ids.size; ids.set(v, id); queue.push(v); }
    return '#' + id;
  };
  ref(globalThis);
  for (let i = 0; i < queue.length; i++) {
    const o = queue[i];
    const keys = Reflect.ownKeys(o).map((k) => [keyText(k), k]).sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const props = [];
    for (const [text, k] of keys) {
      const d = Reflect.getOwnPropertyDescriptor(o, k);
      const flags = (d.enumerable ? 'e' : '-') + (d.configurable ? 'c' : '-');
      if ('value' in d) props.push(text + '=' + flags + (d.writable ? 'w' : '-') + ' ' + ref(d.value));
      else props.push(text + '=' + flags + ' get ' + ref(d.get) + ' set ' + ref(d.set));
    }
    out.push('#' + i + ' ' + typeof o + ' ' + (Object.isExtensible(o) ? 'ext' : 'sealed') +
      ' proto ' + ref(Reflect.getPrototypeOf(o)) + ' {' + props.join(', ') + '}');
  }
  return out.join('\\n');
})()`;

/** How an isolate asked for the snapshot gets its contexts on this engine. */
const DEFAULT_MODE: BootstrapMode = SNAPSHOT_SUPPORTED ? 'snapshot' : 'script';

const tree = toolIndex(bindingsFor('kv.get', 'kv.set', 'users.get'));

async function describeContext(
  mode: BootstrapMode,
): Promise<{ mode: BootstrapMode; shape: string }> {
  const isolate = await SandboxIsolate.create(32, undefined, tree, mode);
  try {
    const prepared = isolate.take(tree, 'p');
    try {
      const shape = (await prepared.context.eval(FINGERPRINT, { copy: true })) as string;
      return { mode: isolate.mode, shape };
    } finally {
      releaseContext(prepared);
    }
  } finally {
    isolate.dispose();
  }
}

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

describe('contexts made from the startup snapshot', () => {
  it('are the contexts the bootstrap script makes, to anything a program can reach', async () => {
    const script = await describeContext('script');
    const snapshot = await describeContext('snapshot');
    expect(script.mode).toBe('script');
    expect(snapshot.mode).toBe(DEFAULT_MODE);
    expect(snapshotFailureReason()).toEqual(
      SNAPSHOT_SUPPORTED ? undefined : expect.stringMatching(/^V8 11\..* does not deserialize/),
    );
    // Hundreds of objects: the walk reached the intrinsics, not just the global's own keys.
    expect(script.shape.split('\n').length).toBeGreaterThan(500);
    expect(script.shape).not.toMatch(/WebAssembly|SharedArrayBuffer|Atomics|__isocodeClaim/);
    if (snapshot.shape !== script.shape) {
      // Name the first difference rather than print two texts of hundreds of lines.
      const a = script.shape.split('\n');
      const b = snapshot.shape.split('\n');
      const at = a.findIndex((line, i) => line !== b[i]);
      expect({ line: at, snapshot: b[at] }).toEqual({ line: at, script: a[at] });
    }
    expect(snapshot.shape).toBe(script.shape);
  });

  it('do not share the random number generator or the clock of the moment it was taken', async () => {
    const isolates = await Promise.all([
      SandboxIsolate.create(32, undefined, tree),
      SandboxIsolate.create(32, undefined, tree),
    ]);
    try {
      const draws: string[] = [];
      for (const isolate of isolates) {
        for (let i = 0; i < 2; i++) {
          expect(isolate.mode).toBe(DEFAULT_MODE);
          const prepared = isolate.take(tree, 'p');
          draws.push(
            (await prepared.context.eval(
              'JSON.stringify([Math.random(), Math.random(), Math.abs(Date.now() - ' +
                String(Date.now()) +
                ') < 60000])',
              { copy: true },
            )) as string,
          );
          releaseContext(prepared);
          await isolate.prepare();
        }
      }
      // Four contexts, two isolates: four different sequences, each reading the real clock.
      expect(new Set(draws).size).toBe(4);
      for (const draw of draws) expect((JSON.parse(draw) as unknown[])[2]).toBe(true);
    } finally {
      for (const isolate of isolates) isolate.dispose();
    }
  });

  it('serve the runs of a pool, one fresh context per run', async () => {
    const { dispatch, calls } = recordingDispatch();
    const first = await runBody(
      pool,
      `globalThis.left = 1; const r = await tools.kv.get({ k: 1 });
       return [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics, typeof eval, '__isocodeClaim' in globalThis];`,
      { dispatch, bindings: bindingsFor('kv.get') },
    );
    expect(expectOk(first)).toEqual(['undefined', 'undefined', 'undefined', 'function', false]);
    const second = await runBody(pool, 'return typeof globalThis.left;', {
      dispatch,
      bindings: bindingsFor('kv.get'),
    });
    expect(expectOk(second)).toBe('undefined');
    expect(calls.map((c) => c.tool)).toEqual(['kv.get']);
    if (SNAPSHOT_SUPPORTED) expect(snapshotFailureReason()).toBeUndefined();
  });

  it('are a pool option with two values', () => {
    expect(() => new SandboxPool({ bootstrap: 'fast' as BootstrapMode })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});
