/**
 * An upstream MCP server whose tool list holds entries isocode cannot offer (a schema the validator
 * cannot compile, an entry that is not an MCP tool): `isocode mcp` starts, serves the server's other
 * tools, and tells the operator on stderr what it left out, with the upstream's text escaped.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpCli, ROOT, runCli } from './helpers.js';
import { initializeRequest } from '../support/mcp-initialize.js';

let work: string;
let client: Client;
let stderr: () => string = () => '';

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'isocode-left-out-')));
  const config = join(work, 'isocode.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      sources: [
        {
          name: 'odd',
          mcp: {
            command: process.execPath,
            args: [join(ROOT, 'test/fixtures/mcp/odd-tools-server.mjs')],
          },
        },
      ],
      scopes: { default: { mode: 'code' } },
    }),
  );
  const started = await connectMcpCli(config, 'isocode-left-out');
  client = started.client;
  stderr = started.stderr;
}, 120_000);

afterAll(async () => {
  await client?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('isocode mcp on a server with tools it cannot offer', () => {
  it('starts and serves the usable tool', async () => {
    const r = (await client.callTool({
      name: 'run_code',
      arguments: {
        description: 'echo',
        code: "return (await tools.odd.echo({ text: 'hi' })).text;",
      },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('names what it left out on stderr, the upstream text escaped', () => {
    const line = stderr()
      .split('\n')
      .find((l) => l.startsWith('source "odd": '));
    expect(line).toBe(
      'source "odd": 2 tools left out: schemaless (not an MCP tool: inputSchema: Invalid input: expected object, received undefined); py\\u001B[31mregex\\u202E (input schema cannot be compiled: Invalid regular expression: /^(?P<id>[a-z]+)$/u: Invalid group)',
    );
    // eslint-disable-next-line no-control-regex
    expect(/[\u001b\u202e]/u.test(stderr())).toBe(false);
  });
});

describe('isocode mcp on stdio, a message over 10 MiB', () => {
  it('ends the session with a line on stderr and exit 1, not a silent exit 0', async () => {
    const init = JSON.stringify(initializeRequest('t'));
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'run_code',
        arguments: { code: 'x'.repeat(11 * 1024 * 1024), description: 'd' },
      },
    });
    const r = await runCli(['mcp'], { input: `${init}\n${huge}\n`, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('over the 10 MiB');
  }, 150_000);
});
