/** Running commands in the temporary apps of the package tests. */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** What a finished command left. */
export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` in `cwd` with this process's environment (and Node on PATH); never throws. */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = 120_000,
): Ran {
  const out = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
  });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** Like {@link run}, but throws with the output when the command fails. */
export function must(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs?: number,
): Ran {
  const ran = run(command, args, cwd, timeoutMs);
  if (ran.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${String(ran.status)}:\n${ran.stdout}\n${ran.stderr}`,
    );
  return ran;
}
