/**
 * The load test: `isocode serve` in its own process with two tenants, two autocannon groups against
 * it (benign programs from both tenants; hostile programs from both tenants), the server's tree RSS
 * sampled from /proc throughout, `/metrics` scraped at the end, a graceful SIGTERM, then the audit
 * log checked against every answered run.
 */
import { checkAudit, readAudit, type AuditCheck } from './audit.js';
import { drive, type GroupTally, type Shot } from './drive.js';
import { scrapeMetrics, sumSeries, WORKER_RESTARTS } from './metrics.js';
import { sampleTreeRss } from './proc.js';
import { benignPrograms, HOSTILE_PROGRAMS, SURVIVABLE_TODAY, type Program } from './programs.js';
import { startFace, type CliBuild, type Exit } from './server.js';
import { writeTenantConfig, type Tenant } from './tenants.js';

/**
 * Which hostile programs join the benign traffic: none, the ones the current server survives, or
 * all of them (run `full` only against a server you can afford to lose).
 */
export type Mix = 'benign' | 'safe' | 'full';

/** Options of {@link runLoad}. */
export interface LoadOptions {
  durationSec: number;
  mix: Mix;
  /** @default 4 */
  benignConnections?: number;
  /** @default 2 */
  hostileConnections?: number;
  rssBudgetMb: number;
  /** @default 'dist' */
  build?: CliBuild;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
}

/** Everything the load test measured. */
export interface LoadResult {
  options: Required<Omit<LoadOptions, 'log'>>;
  benign: GroupTally;
  hostile: GroupTally | undefined;
  /** The server exited before the harness stopped it. */
  crashed: Exit | undefined;
  /** How the server ended after SIGTERM (undefined when it had crashed). */
  stopped: (Exit & { killed: boolean }) | undefined;
  peakRssBytes: number;
  /** Worker restarts from `/metrics`; undefined when the server exposes no such series. */
  workerRestarts: number | undefined;
  audit: AuditCheck;
  /** The server's stderr tail, when it crashed. */
  stderrTail: string | undefined;
}

const interleave = (tenants: readonly Tenant[], programs: (t: Tenant) => Program[]): Shot[] => {
  const lists = tenants.map((tenant) => programs(tenant).map((program) => ({ tenant, program })));
  const out: Shot[] = [];
  for (let i = 0; i < Math.max(...lists.map((l) => l.length)); i++)
    for (const list of lists) {
      const shot = list[i];
      if (shot) out.push(shot);
    }
  return out;
};

const hostileFor = (mix: Mix): Program[] =>
  mix === 'benign'
    ? []
    : HOSTILE_PROGRAMS.filter((p) => mix === 'full' || SURVIVABLE_TODAY.has(p.name));

/** Runs the load test once; never leaves the server running. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const settings = {
    durationSec: options.durationSec,
    mix: options.mix,
    benignConnections: options.benignConnections ?? 4,
    hostileConnections: options.hostileConnections ?? 2,
    rssBudgetMb: options.rssBudgetMb,
    build: options.build ?? 'dist',
  };
  const log = options.log ?? (() => undefined);
  const setup = writeTenantConfig();
  const server = await startFace({
    args: ['serve', '--config', setup.configPath, '--port', '0'],
    build: settings.build,
  });
  try {
    log(`server ${server.pid} at ${server.url}; ${settings.durationSec}s, mix ${settings.mix}`);
    const rss = sampleTreeRss(server.pid);
    const timeoutSec = 30;
    const benign = drive({
      url: server.url,
      shots: interleave(setup.tenants, (t) => benignPrograms(t.scope)),
      connections: settings.benignConnections,
      durationSec: settings.durationSec,
      timeoutSec,
    });
    const hostilePrograms = hostileFor(settings.mix);
    const hostile =
      hostilePrograms.length === 0
        ? undefined
        : drive({
            url: server.url,
            shots: interleave(setup.tenants, () => hostilePrograms),
            connections: settings.hostileConnections,
            durationSec: settings.durationSec,
            timeoutSec,
          });
    // A crash ends the run at once: the clients would only collect connection refusals.
    const state: { stopping: boolean; crashed?: Exit } = { stopping: false };
    void server.exited.then((exit) => {
      if (state.stopping) return;
      state.crashed = exit;
      benign.stop();
      hostile?.stop();
    });
    const [benignTally, hostileTally] = await Promise.all([benign.done, hostile?.done]);
    const metrics = state.crashed ? undefined : await scrapeMetrics(server.url);
    const peakRssBytes = rss.stop();
    state.stopping = state.crashed === undefined;
    const stopped = state.stopping ? await server.stop(30_000) : undefined;
    const crashed = state.crashed;
    const { records, malformedLines } = readAudit(setup.auditPath);
    const answered = [...benignTally.callIds, ...(hostileTally?.callIds ?? [])];
    return {
      options: settings,
      benign: benignTally,
      hostile: hostileTally,
      crashed,
      stopped,
      peakRssBytes,
      workerRestarts: metrics ? sumSeries(metrics, WORKER_RESTARTS) : undefined,
      audit: checkAudit(records, answered, malformedLines),
      stderrTail: crashed ? server.stderr().slice(-2_000) : undefined,
    };
  } finally {
    await server.stop(5_000);
    setup.dispose();
  }
}
