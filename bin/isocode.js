#!/usr/bin/env node
// The isocode launcher. isolated-vm on Node 20+ needs --no-node-snapshot; users must not have to
// pass it, so the launcher re-executes Node with the flag when it is missing, forwarding argv,
// stdio, signals and the exit code.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const hasFlag =
  process.execArgv.includes('--no-node-snapshot') ||
  (process.env.NODE_OPTIONS ?? '').split(/\s+/).includes('--no-node-snapshot');

if (hasFlag) {
  const { main } = await import(cli);
  await main(process.argv.slice(2));
} else {
  const child = spawn(
    process.execPath,
    [
      '--no-node-snapshot',
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    {
      stdio: 'inherit',
    },
  );
  const forward = (signal) => () => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward(signal));
  child.on('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
