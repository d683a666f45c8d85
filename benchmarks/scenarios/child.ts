/**
 * Spawning a benchmark child process (`node --no-node-snapshot --import tsx <script> ...`):
 * its last stdout line is a JSON result; stderr lines starting with `tick ` advance progress.
 */
import { spawn } from 'node:child_process';

/** What a child produced. */
export interface ChildResult<T> {
  value: T | undefined;
  /** Spawn to exit, milliseconds. */
  wallMs: number;
  /** Why there is no value (spawn error, non-JSON output, non-zero exit). */
  error: string | undefined;
}

/** Options of {@link spawnBenchChild}. */
export interface ChildOptions {
  /** Extra Node flags before `--import tsx`. @default [] */
  nodeFlags?: readonly string[];
  /** Kill after this long. @default 120000 */
  timeoutMs?: number;
  /** Called with the count of every `tick <n>` line on stderr. */
  onTick?: (steps: number) => void;
}

/** Runs `script` with `args` in a fresh Node process and parses its last stdout line as JSON. */
export function spawnBenchChild<T>(
  script: string,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildResult<T>> {
  const start = process.hrtime.bigint();
  const flags = ['--no-node-snapshot', ...(options.nodeFlags ?? []), '--import', 'tsx'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...flags, script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: 'true' },
      timeout: options.timeoutMs ?? 120_000,
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const tick = /^tick (\d+)$/.exec(line);
        if (tick?.[1] !== undefined) options.onTick?.(Number(tick[1]));
        else if (stderr.length < 4000) stderr += `${line}\n`;
      }
    });
    child.on('error', (error) => resolve({ value: undefined, wallMs: 0, error: error.message }));
    child.on('close', (code, signal) => {
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve({ value: JSON.parse(line) as T, wallMs, error: undefined });
      } catch {
        const why = signal === null ? `exited ${code}` : `killed by ${signal}`;
        const detail = stderr.trim().slice(0, 300) || 'no output';
        resolve({ value: undefined, wallMs, error: `child ${why}: ${detail}` });
      }
    });
  });
}

/** The floor any Node command pays on this machine at this moment: `node -e 0`. */
export const NODE_FLOOR_ARGS: readonly string[] = ['-e', '0'];

/**
 * Spawn to exit of `node <args>` in `cwd`, in ms; rejects unless it exits 0. Scenarios time their
 * commands round-robin with {@link NODE_FLOOR_ARGS}, so a ratio to the floor holds under load.
 */
export function timeSpawnToExit(args: readonly string[], cwd?: string): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      ...(cwd === undefined ? {} : { cwd }),
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c.slice(0, 2000)));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(Number(process.hrtime.bigint() - start) / 1e6);
      else reject(new Error(`exited ${code ?? signal}: ${stderr.trim().slice(0, 300)}`));
    });
  });
}
