/**
 * isocode's second wall beside Anthropic's sandbox runtime (`@anthropic-ai/sandbox-runtime`, `srt`),
 * side by side in one process (decision record 032, issue 25):
 *
 *   node --import tsx benchmarks/wall-peers.ts [--rounds 15] [--out benchmarks/results/wall-peers-latest.md]
 *
 * The same command, `node -e 0` (the binary that runs isocode's sandbox workers), started four ways,
 * round by round in rotating order so that the machine's load hits each alike:
 *
 * - `bare`: `node -e 0` itself;
 * - `isocode wall`: through `walledArgv` exactly as a sandbox worker is walled (prlimit, bubblewrap
 *   with every namespace, only the binary and its libraries read-only, a private /tmp, the seccomp
 *   filter) — what each sandbox worker's start pays, once per worker process;
 * - `srt`: `srt -c 'node -e 0'` with no network and `denyRead: ["/root"]` (its CLI starts, builds its
 *   bubblewrap sandbox, its network proxies, and runs the command) — what wrapping one command costs;
 * - `srt (library)`: one `SandboxManager.initialize` for the process (its proxies started once), then
 *   `wrapWithSandbox` + spawn per command — the cost a host that keeps srt loaded pays per start.
 *
 * Both are bubblewrap underneath; what each wall refuses is tabled in decision 032. Prints medians (ms)
 * and each ÷ bare, and writes the table to --out. srt needs ripgrep and socat (Debian: ripgrep, socat).
 */
import { spawnSync, spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { SECCOMP_FD, sharedLibraryDirs, walledArgv } from '../src/wall/bwrap.js';
import { seccompFile } from '../src/wall/seccomp.js';
import { resolveWall } from '../src/wall/wall.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    out: { type: 'string', default: 'benchmarks/results/wall-peers-latest.md' },
  },
});
const ROUNDS = Number(values.rounds);
const ROOT = resolve(import.meta.dirname, '..');
const node = process.execPath;

const wall = resolveWall('bwrap');
if (wall.tools === undefined)
  throw new Error('bubblewrap or prlimit is missing: apt-get install bubblewrap');
const tools = wall.tools;
const filter = seccompFile();

const require = createRequire(import.meta.url);
const srtPackage = require.resolve('@anthropic-ai/sandbox-runtime/package.json');
const srtCli = join(srtPackage, '..', 'dist', 'cli.js');
const srtVersion = (require('@anthropic-ai/sandbox-runtime/package.json') as { version: string })
  .version;
const settingsDir = mkdtempSync(join(tmpdir(), 'isocode-wall-peers-'));
const settings = join(settingsDir, 'srt-settings.json');
const srtConfig = {
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { denyRead: ['/root'], allowWrite: [], denyWrite: [] },
};
writeFileSync(settings, JSON.stringify(srtConfig));

// One environment for every way (the wall starts its command with a cleared one): this shell's
// variables cost a bare `node -e 0` ~50 ms here (78 against 28 ms), which is not the wall's doing.
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' };

function timed(
  file: string,
  args: readonly string[],
  stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'ignore', 'pipe'],
): number {
  const t0 = performance.now();
  const out = spawnSync(file, args, { stdio, env: ENV, encoding: 'utf8', timeout: 30_000 });
  const ms = performance.now() - t0;
  if (out.status !== 0)
    throw new Error(`${file} ${args.join(' ')} exited ${String(out.status)}: ${out.stderr}`);
  return ms;
}

const bare = (): number => timed(node, ['-e', '0']);

const isocodeWall = (): number => {
  const [file = '', ...rest] = walledArgv(
    tools,
    {
      readOnly: [node, ...sharedLibraryDirs(node)],
      cwd: '/',
      env: {},
      seccompFd: filter === undefined ? undefined : SECCOMP_FD,
    },
    node,
    ['-e', '0'],
  );
  if (filter === undefined) return timed(file, rest);
  const fd = openSync(filter, 'r');
  try {
    return timed(file, rest, ['ignore', 'ignore', 'pipe', 'ignore', fd]);
  } finally {
    closeSync(fd);
  }
};

const srtCliRun = (): number => timed(node, [srtCli, '-s', settings, '-c', `${node} -e 0`]);

interface SandboxManagerApi {
  initialize(config: unknown): Promise<void>;
  wrapWithSandbox(command: string): Promise<string>;
  reset(): Promise<void>;
}
const { SandboxManager } = (await import('@anthropic-ai/sandbox-runtime')) as unknown as {
  SandboxManager: SandboxManagerApi;
};
await SandboxManager.initialize(srtConfig);
const srtLibrary = async (): Promise<number> => {
  const t0 = performance.now();
  const wrapped = await SandboxManager.wrapWithSandbox(`${node} -e 0`);
  const code = await new Promise<number | null>((done) =>
    spawn(wrapped, { shell: true, stdio: 'ignore', env: ENV }).once('exit', done),
  );
  if (code !== 0) throw new Error(`srt library run exited ${String(code)}`);
  return performance.now() - t0;
};

const ways: Array<[string, () => number | Promise<number>]> = [
  ['bare', bare],
  ['isocode wall', isocodeWall],
  ['srt (CLI)', srtCliRun],
  ['srt (library)', srtLibrary],
];
const samples = new Map<string, number[]>(ways.map(([name]) => [name, []]));
for (const [, run] of ways) await run(); // warm the page cache and srt's first start
for (let round = 0; round < ROUNDS; round++)
  for (let i = 0; i < ways.length; i++) {
    const [name, run] = ways[(round + i) % ways.length]!;
    samples.get(name)!.push(await run());
  }
await SandboxManager.reset();

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const base = median(samples.get('bare')!);
const rows = ways.map(([name]) => {
  const m = median(samples.get(name)!);
  return `| ${name} | ${m.toFixed(1)} | ${(m / base).toFixed(2)}× | ${(m - base).toFixed(1)} |`;
});
const text = `# The second wall beside @anthropic-ai/sandbox-runtime

\`node --import tsx benchmarks/wall-peers.ts --rounds ${ROUNDS}\`, ${new Date().toISOString().slice(0, 10)},
Node ${process.versions.node}, srt ${srtVersion}, one process, rotating order, medians of ${ROUNDS} rounds.
The command each starts: \`node -e 0\`.

| start | median ms | ÷ bare | added ms |
| --- | ---: | ---: | ---: |
${rows.join('\n')}

isocode's wall is paid once per sandbox worker process (a worker serves many runs); srt's CLI per wrapped
command. What each refuses: decision 032.
`;
process.stdout.write(text);
writeFileSync(resolve(ROOT, values.out), text);
