import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isIsocodeError } from '../../src/index.js';
import { mcpTools } from '../../src/sources/index.js';
import type { McpSource } from '../../src/sources/index.js';
import { ctx, freePort, rejection, serverScript, tool } from './helpers.js';

/** The everything server in streamable HTTP mode on `port`; resolves once it listens. */
async function startEverything(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [serverScript('everything'), 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('listening on port')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`everything server exited with ${code}: ${err}`)),
    );
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

describe('mcpTools over streamable HTTP: server-everything', () => {
  const children: ChildProcess[] = [];
  const sources: McpSource[] = [];
  afterAll(async () => {
    await Promise.all(sources.map((s) => s.close()));
    await Promise.all(children.map(stop));
  });

  it('lists and calls tools, cancels a call, and survives a server restart', async () => {
    const port = await freePort();
    children.push(await startEverything(port));
    const ev = await mcpTools({
      name: 'web',
      mcp: { url: `http://127.0.0.1:${port}/mcp` },
      reconnect: { initialDelayMs: 20, maxDelayMs: 20 },
    });
    sources.push(ev);
    expect(ev.status()).toMatchObject({
      transport: 'http',
      state: 'connected',
      pid: undefined,
      server: { name: 'mcp-servers/everything' },
    });
    expect(ev.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['web.echo', 'web.get-structured-content']),
    );
    expect(await tool(ev.tools, 'web.echo').execute({ message: 'over http' }, ctx())).toMatchObject(
      { text: 'Echo: over http' },
    );
    expect(
      await tool(ev.tools, 'web.get-structured-content').execute({ location: 'New York' }, ctx()),
    ).toEqual({
      temperature: 33,
      conditions: 'Cloudy',
      humidity: 82,
    });

    const controller = new AbortController();
    const long = tool(ev.tools, 'web.trigger-long-running-operation').execute(
      { duration: 30, steps: 30 },
      ctx(controller.signal),
    );
    setTimeout(() => controller.abort(new Error('stop')), 100);
    expect(((await rejection(long)) as Error).message).toBe('stop');

    // the server dies mid-call
    // (the handler is attached at once: the rejection lands while the test awaits the kill)
    const inFlight = rejection(
      tool(ev.tools, 'web.trigger-long-running-operation').execute(
        { duration: 30, steps: 30 },
        ctx(),
      ),
    );
    await new Promise((r) => setTimeout(r, 100));
    await stop(children[0] as ChildProcess);
    const lost = await inFlight;
    expect(isIsocodeError(lost) && lost.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((lost as Error).message).toMatch(/^upstream MCP server "web" is not reachable: /);

    // while it is down, a reconnection fails: again UPSTREAM_UNAVAILABLE
    const down = await rejection(tool(ev.tools, 'web.echo').execute({ message: 'x' }, ctx()));
    expect(isIsocodeError(down) && down.code).toBe('UPSTREAM_UNAVAILABLE');

    // back up on the same port: a later call reconnects (new session)
    children.push(await startEverything(port));
    expect(await tool(ev.tools, 'web.echo').execute({ message: 'again' }, ctx())).toMatchObject({
      text: 'Echo: again',
    });
    expect(ev.status()).toMatchObject({
      state: 'connected',
      reconnects: 1,
      consecutiveFailures: 0,
    });
  });
});

describe('mcpTools over streamable HTTP: an in-process McpServer', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('sends the configured headers with every request', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const http = createServer((req, res) => {
      seen.push(req.headers);
      const server = new McpServer({ name: 'inproc', version: '0.0.1' });
      server.registerTool(
        'whoami',
        { description: 'Echoes the auth header.', inputSchema: { n: z.number() } },
        ({ n }) => ({
          content: [{ type: 'text', text: `n=${n}` }],
        }),
      );
      // stateless: a fresh server and transport per request
      const transport = new StreamableHTTPServerTransport({});
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const address = http.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    close = () =>
      new Promise<void>((r) => {
        http.closeAllConnections();
        http.close(() => r());
      });

    const source = await mcpTools({
      name: 'auth',
      mcp: {
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: 'Bearer t0ken', 'X-Tenant': 'a' },
      },
    });
    expect(await tool(source.tools, 'auth.whoami').execute({ n: 7 }, ctx())).toMatchObject({
      text: 'n=7',
    });
    expect(seen.length).toBeGreaterThan(0);
    for (const h of seen)
      expect(h).toMatchObject({ authorization: 'Bearer t0ken', 'x-tenant': 'a' });
    await source.close();
    expect(source.status().state).toBe('closed');
  });
});
