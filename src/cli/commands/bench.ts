/** `isocode bench`: runs the benchmark suite (benchmarks/run.ts of a source checkout). */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../errors.js';
import { packageInfo } from '../pkg.js';

/** Runs `benchmarks/run.ts` in a child Node process with stdio inherited; resolves to its exit code. */
export async function benchCommand(args: readonly string[]): Promise<number> {
  const { root } = packageInfo();
  const script = join(root, 'benchmarks', 'run.ts');
  if (!existsSync(script))
    throw new UsageError(`isocode bench needs a source checkout: ${script} does not exist`);
  let tsx: string;
  try {
    tsx = pathToFileURL(createRequire(join(root, 'package.json')).resolve('tsx')).href;
  } catch {
    throw new UsageError(
      'isocode bench needs the "tsx" package (a devDependency): run npm install',
    );
  }
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', tsx, script, ...args], {
    stdio: 'inherit',
  });
  const forward = (signal: NodeJS.Signals) => (): void => void child.kill(signal);
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + 2 : 1)));
    });
  } finally {
    for (const [s, h] of handlers) process.off(s, h);
  }
}
