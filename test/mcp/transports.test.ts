/**
 * The MCP server over real transports with the SDK's own Client: stdio (`isocode mcp` spawned from
 * source with the demo tools) and streamable HTTP (`serveMcpHttp`: sessions, stateless, API keys,
 * loopback Host/Origin checks).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, isIsocodeError, type Runtime } from '../../src/index.js';
import { serveMcpHttp, type McpHttpHandle } from '../../src/mcp/index.js';
import { builtinDemoTools } from '../../src/sources/index.js';
import { CLI_ARGS, ROOT } from '../cli/helpers.js';
import { listeningUrl } from '../support/listening.js';

const text = (r: unknown): string =>
  (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

const PROGRAM = {
  name: 'run_code',
  arguments: {
    description: 'shout',
    code: `return (await tools.text.transform({ text: 'mcp works', mode: 'upper' })).text;`,
  },
};

describe('stdio: isocode mcp', () => {
  it('serves the demo tools in code mode to an MCP client', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI_ARGS, 'mcp'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '0.0.0' });
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('isocode');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['run_code']);
    expect(text(await client.callTool(PROGRAM))).toBe('MCP WORKS');
    await client.close();
  });

  it('keeps stdout for the protocol even when a tools module logs with console.log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'isocode-mcp-'));
    const mod = join(dir, 'noisy.mjs');
    writeFileSync(
      mod,
      `console.log('noisy module loaded');\nexport default [{ name: 'noisy.echo', description: 'Echoes.', input: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] }, execute: ({ s }) => { console.log('echo', s); return s; } }];\n`,
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...CLI_ARGS, 'mcp', '--tools', mod],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'stdio-noisy', version: '0.0.0' });
    await client.connect(transport);
    const r = await client.callTool({
      name: 'run_code',
      arguments: { description: 'echo', code: `return await tools.noisy.echo({ s: 'hi' });` },
    });
    expect(text(r)).toBe('hi');
    await client.close();
    rmSync(dir, { recursive: true, force: true });
    expect(stderr).toContain('noisy module loaded');
    expect(stderr).toContain('echo hi');
  });

  it('exits 0 when the client closes stdin', async () => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'mcp'], { cwd: ROOT });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stdin.end();
    const exit = await new Promise<[number | null, string | null]>((resolve) =>
      child.once('close', (code, signal) => resolve([code, signal])),
    );
    expect(exit).toEqual([0, null]);
    expect(stdout).toBe('');
  });

  it('exits 2 with the error on stderr (and nothing on stdout) for a bad config', async () => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'mcp', '--config', 'does-not-exist.json'], {
      cwd: ROOT,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('INVALID_CONFIG');
  });
});

describe('streamable HTTP: serveMcpHttp', () => {
  let runtime: Runtime;
  const handles: McpHttpHandle[] = [];
  beforeAll(async () => {
    runtime = await createRuntime({
      tools: builtinDemoTools(),
      scopes: { default: { mode: 'code' }, native: { mode: 'native' } },
    });
  });
  afterAll(async () => {
    await Promise.all(handles.map((h) => h.close()));
    await runtime.close();
  });
  const serve = async (
    o: Partial<Parameters<typeof serveMcpHttp>[0]> = {},
  ): Promise<McpHttpHandle> => {
    const h = await serveMcpHttp({ runtime, port: 0, ...o });
    handles.push(h);
    return h;
  };
  const connect = async (url: string, headers: Record<string, string> = {}): Promise<Client> => {
    const client = new Client({ name: 'http-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
    );
    return client;
  };

  it('stateful sessions: list, run, collapse; DELETE ends the session', async () => {
    const h = await serve();
    expect(h.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'http-test', version: '0.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    await client.connect(transport);
    expect(transport.sessionId).toBeTypeOf('string');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['run_code']);
    expect(text(await client.callTool(PROGRAM))).toBe('MCP WORKS');
    const direct = await client.callTool({
      name: 'text.transform',
      arguments: { text: 'x', mode: 'upper' },
    });
    expect(direct.isError).toBe(true);
    expect(text(direct)).toMatch(/^Error UNKNOWN_TOOL/);
    const sessionId = transport.sessionId ?? '';
    await transport.terminateSession();
    const stale = await fetch(h.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    await client.close();
  });

  it('stateless: every request on its own; GET is 405', async () => {
    const h = await serve({ sessions: 'stateless' });
    const client = await connect(h.url);
    expect(text(await client.callTool(PROGRAM))).toBe('MCP WORKS');
    await client.close();
    const get = await fetch(h.url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('API keys: no key is 401; each key runs in its own scope', async () => {
    const h = await serve({
      apiKeys: [
        { key: 'code-key', scope: 'default' },
        { key: 'native-key', scope: 'native' },
      ],
    });
    const anonymous = await fetch(h.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    const code = await connect(h.url, { authorization: 'Bearer code-key' });
    const native = await connect(h.url, { authorization: 'Bearer native-key' });
    expect((await code.listTools()).tools.map((t) => t.name)).toEqual(['run_code']);
    const nativeNames = (await native.listTools()).tools.map((t) => t.name);
    expect(nativeNames).toContain('kv.get');
    expect(nativeNames).not.toContain('run_code');
    await Promise.all([code.close(), native.close()]);
  });

  it('refuses a non-loopback Origin or Host (DNS rebinding)', async () => {
    const h = await serve();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const origin = await fetch(h.url, {
      method: 'POST',
      headers: { ...headers, origin: 'https://evil.example' },
      body,
    });
    expect(origin.status).toBe(403);
    const other = await fetch(h.url.replace('/mcp', '/other'), { method: 'POST', headers, body });
    expect(other.status).toBe(404);
  });

  it('refuses to serve without API keys on a non-loopback interface', async () => {
    let caught: unknown;
    try {
      await serve({ host: '0.0.0.0' });
    } catch (err) {
      caught = err;
    }
    expect(isIsocodeError(caught) && caught.code).toBe('INVALID_CONFIG');
  });
});

describe('streamable HTTP: isocode mcp --http', () => {
  it('prints its URL on stderr, serves a client, and stops on SIGTERM with exit 0', async () => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'mcp', '--http', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { url } = await listeningUrl(child, { label: 'isocode mcp --http' });
    const client = new Client({ name: 'cli-http', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(text(await client.callTool(PROGRAM))).toBe('MCP WORKS');
    await client.close();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
