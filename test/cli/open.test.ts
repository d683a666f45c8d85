/**
 * Limits reach the runtime field by field: `openRuntime` layers the caller's code-mode limits over
 * the config's (top level and per scope), so the CLI's limit flags never drop a configured limit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunCodeValue, Runtime, ToolResult } from '../../src/index.js';
import { openRuntime } from '../../src/sources/open.js';
import { runCli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'isocode-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const TWO_CALLS = `await tools.kv.set({ key: 'a', value: '1' });\nreturn await tools.kv.get({ key: 'a' });`;
const TOO_MANY = /too many tool calls in one program \(limit 1\)/;
const SPIN = `let i = 0;\nfor (;;) i++;`;

const run = (runtime: Runtime, code: string, scope?: string): Promise<ToolResult> =>
  runtime.execute(
    { name: 'run_code', args: { code, description: 'limits' } },
    scope === undefined ? {} : { scope },
  );
const kindOf = (r: ToolResult): unknown => (r.ok ? 'ok' : r.error.details?.kind);
const callsOf = (r: ToolResult): number =>
  r.ok ? (r.value as unknown as RunCodeValue).calls.length : -1;

describe('openRuntime: code-mode limits merge field by field', () => {
  it('the caller’s limits add to the config’s, at the top level and per scope', async () => {
    const config = file(
      'limits.json',
      JSON.stringify({
        sources: [{ builtin: 'demo' }],
        limits: { maxCalls: 1 },
        scopes: { default: { mode: 'code' }, small: { limits: { maxCalls: 1 } } },
      }),
    );
    const opened = await openRuntime({
      configPath: config,
      runtime: {
        codeMode: {
          typecheck: 'off',
          limits: { cpuMs: 300 },
          scopeLimits: { small: { cpuMs: 300 } },
        },
      },
    });
    try {
      for (const scope of ['default', 'small']) {
        // The config's maxCalls still holds beside the caller's cpuMs ...
        const calls = await run(opened.runtime, TWO_CALLS, scope);
        expect(!calls.ok && calls.error.message, scope).toMatch(TOO_MANY);
        // ... and the caller's cpuMs holds beside it.
        expect(kindOf(await run(opened.runtime, SPIN, scope)), scope).toBe('timeout');
      }
    } finally {
      await opened.close();
    }
  });

  it('without caller limits, the config’s apply; a caller limit overrides the same config key', async () => {
    const config = file(
      'override.json',
      JSON.stringify({ sources: [{ builtin: 'demo' }], limits: { maxCalls: 1 } }),
    );
    const plain = await openRuntime({ configPath: config });
    try {
      const r = await run(plain.runtime, TWO_CALLS);
      expect(!r.ok && r.error.message).toMatch(TOO_MANY);
    } finally {
      await plain.close();
    }
    const raised = await openRuntime({
      configPath: config,
      runtime: { codeMode: { limits: { maxCalls: 5 } } },
    });
    try {
      expect(callsOf(await run(raised.runtime, TWO_CALLS))).toBe(2);
    } finally {
      await raised.close();
    }
  });
});

describe('isocode run: limit flags layer over the config', () => {
  it('--cpu-ms does not drop the config’s maxCalls', async () => {
    const config = file(
      'cli.json',
      JSON.stringify({ sources: [{ builtin: 'demo' }], limits: { maxCalls: 1 } }),
    );
    const r = await runCli(['run', '-', '--config', config, '--cpu-ms', '5000'], {
      input: TWO_CALLS,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(TOO_MANY);
  });
});
