/** Spawning the CLI from source (tsx) as a child process, the way users run it. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = join(ROOT, 'test/cli/entry.ts');
const TSX = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;

/** The node arguments that start the CLI (for spawning it from other tools, e.g. an MCP client). */
export const CLI_ARGS: readonly string[] = ['--no-node-snapshot', '--import', TSX, ENTRY];

/** What a CLI run left behind. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `isocode <args>` to completion (killed after `timeoutMs`). */
export function runCli(
  args: readonly string[],
  options: { input?: string; cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
      cwd: options.cwd ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    // A child may end before it read all of its input (a refused, too-large program): the rest
    // of the write fails with EPIPE, which is its answer, not the test's error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** `isocode mcp --config <config>` started over stdio, an MCP client connected to it, and its stderr. */
export async function connectMcpCli(
  config: string,
  clientName: string,
): Promise<{ client: Client; stderr: () => string }> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI_ARGS, 'mcp', '--config', config],
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: clientName, version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
