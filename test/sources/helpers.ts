/** Shared helpers of the sources tests: real upstream MCP server binaries and process checks. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { ToolContext, ToolDefinition } from '../../src/index.js';

const modulesDir = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** The entry script of an installed `@modelcontextprotocol/server-<name>` (from its package.json `bin`). */
export function serverScript(name: 'memory' | 'filesystem' | 'everything'): string {
  const dir = join(modulesDir, '@modelcontextprotocol', `server-${name}`);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  const bin = Object.values(pkg.bin)[0];
  if (bin === undefined) throw new Error(`no bin in server-${name}`);
  return join(dir, bin);
}

/** A tool context with a fresh (or the given) signal. */
export function ctx(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, callId: 'c1', parentId: undefined, scope: 'default' };
}

/** Finds a tool by name or fails. */
export function tool(tools: readonly ToolDefinition[], name: string): ToolDefinition {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} among ${tools.map((x) => x.name).join(', ')}`);
  return t;
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An ended process nobody reaped yet (its parent gone, init slow to reap) is not alive.
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until `check()` holds (for process exit, which is asynchronous by nature). */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The rejection of a promise (fails when it resolves). */
export async function rejection(p: unknown): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
