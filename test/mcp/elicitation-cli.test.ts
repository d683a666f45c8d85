/**
 * Approvals by elicitation through the CLI: `isocode mcp` spawned from source over stdio, from a
 * config whose scope asks for the demo text tools and writes an audit file; the SDK's Client
 * declares `elicitation` and approves. Kept apart from elicitation.test.ts (spawning is slow).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLI_ARGS, ROOT } from '../cli/helpers.js';

const approve = (approve: boolean): ElicitResult => ({ action: 'accept', content: { approve } });
const text = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('isocode mcp (stdio, from a config with an ask pattern and an audit file)', () => {
  const PROGRAM = {
    name: 'run_code',
    arguments: {
      description: 'shout',
      code: `return (await tools.text.transform({ text: 'asked', mode: 'upper' })).text;`,
    },
  };

  async function serve(mcp: object | undefined): Promise<{ r: CallToolResult; audit: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'isocode-elicit-'));
    try {
      const config = join(dir, 'isocode.config.json');
      writeFileSync(
        config,
        JSON.stringify({
          sources: [{ builtin: 'demo' }],
          scopes: { default: { mode: 'code', ask: ['text.*'] } },
          audit: { path: './audit.jsonl' },
          ...(mcp ? { mcp } : {}),
        }),
      );
      const client = new Client(
        { name: 'stdio-elicit', version: '0.0.0' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, () => approve(true));
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [...CLI_ARGS, 'mcp', '--config', config],
          cwd: ROOT,
          stderr: 'pipe',
        }),
      );
      const r = (await client.callTool(PROGRAM)) as CallToolResult;
      await client.close();
      // The audit line of the decision is written before the call's result is sent.
      const file = join(dir, 'audit.jsonl');
      await expect.poll(() => readFileSync(file, 'utf8')).toContain('approval/decided');
      return { r, audit: readFileSync(file, 'utf8') };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('asks the client, and the audit file has the ask and the decision', async () => {
    const { r, audit: lines } = await serve(undefined);
    expect(text(r)).toBe('ASKED');
    const events = lines
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.find((e) => e['type'] === 'approval/asked')).toMatchObject({
      name: 'text.transform',
    });
    expect(events.find((e) => e['type'] === 'approval/decided')).toMatchObject({
      name: 'text.transform',
      outcome: 'allowed-once',
      decidedBy: 'mcp-elicitation:stdio-elicit',
    });
  });

  it('with mcp.elicitation false the ask fails closed (no approver)', async () => {
    const { r, audit: lines } = await serve({ elicitation: false });
    expect(text(r)).toContain('DENIED');
    expect(lines).toContain('"outcome":"unavailable"');
  });
});
