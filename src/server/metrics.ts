/**
 * The service's metrics: HTTP requests, run_code runs and their failure kinds, nested calls,
 * latency histograms and isolates alive. Series carry no tool or scope names, so `/metrics` shows
 * nothing about any tenant's catalog.
 */
import type { WorkerPoolStats } from '../sandbox/worker/supervisor.js';
import { RUN_CODE, type ExecutorEvent, type Runtime, type ToolResult } from '../index.js';
import { monitorEventLoop, type EventLoopLag } from './event-loop.js';
import { Counter, Gauge, Histogram, MetricsRegistry, Summary } from './prometheus.js';

/** What the durable gauges read of the run manager. */
export interface DurableMetricsSource {
  stats(): { local: number; held: number };
  health(): {
    status: string;
    stats?: { runs: number; bytes: number; approvalsPending: number } | undefined;
  };
}

/** Gauges of durable runs: lives here, and the store's health and size (as last seen). */
function addDurableGauges(registry: MetricsRegistry, runs: DurableMetricsSource): void {
  const gauge = (name: string, help: string, read: () => number): void => {
    registry.add(new Gauge(name, help, read));
  };
  gauge(
    'isocode_durable_runs_local',
    'Durable run lives running on this replica (each holds a run slot; parked runs hold none).',
    () => runs.stats().local,
  );
  gauge('isocode_durable_leases_held', 'Run leases this replica holds.', () => runs.stats().held);
  gauge(
    'isocode_durable_store_up',
    'Whether the run store answered its last ping (1) or not (0).',
    () => (runs.health().status === 'unreachable' ? 0 : 1),
  );
  gauge(
    'isocode_durable_store_runs',
    'Runs in the store at the last check.',
    () => runs.health().stats?.runs ?? 0,
  );
  gauge(
    'isocode_durable_store_bytes',
    'Bytes the runs in the store hold at the last check.',
    () => runs.health().stats?.bytes ?? 0,
  );
  gauge(
    'isocode_durable_approvals_pending',
    'Approvals waiting for a human at the last check.',
    () => runs.health().stats?.approvalsPending ?? 0,
  );
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The metrics of one HTTP app. */
export interface ServiceMetrics {
  /** Records one HTTP response. */
  request(route: string, status: number): void;
  /** Records a run_code result served over HTTP. */
  run(result: ToolResult): void;
  /** The exposition text. */
  render(): string;
  /** Stops listening to the runtime's events and sampling the event loop. */
  dispose(): void;
}

/** Creates the metrics of an app over `runtime`; `inFlight` reads the requests being served. */
export function createServiceMetrics(
  runtime: Runtime,
  inFlight: () => number,
  durable?: DurableMetricsSource,
): ServiceMetrics {
  const registry = new MetricsRegistry();
  if (durable !== undefined) addDurableGauges(registry, durable);
  const requests = registry.add(
    new Counter('isocode_http_requests_total', 'HTTP responses by route and status.'),
  );
  const runs = registry.add(
    new Counter(
      'isocode_runs_total',
      'run_code executions served over HTTP, by outcome (ok or error).',
    ),
  );
  const failures = registry.add(
    new Counter(
      'isocode_run_failures_total',
      'Failed run_code executions by error code and failure kind (error.details.kind; "none" when absent).',
    ),
  );
  const runLatency = registry.add(
    new Histogram(
      'isocode_run_duration_seconds',
      'Duration of run_code executions served over HTTP.',
      LATENCY_BUCKETS,
    ),
  );
  const toolCalls = registry.add(
    new Counter(
      'isocode_tool_calls_total',
      'Settled tool calls other than run_code, by nesting (nested: dispatched by a run_code program) and outcome.',
    ),
  );
  const nested = registry.add(
    new Counter(
      'isocode_nested_calls_total',
      'Tool calls dispatched from run_code programs, by outcome.',
    ),
  );
  const toolLatency = registry.add(
    new Histogram(
      'isocode_tool_call_duration_seconds',
      'Duration of tool calls other than run_code, by nesting.',
      LATENCY_BUCKETS,
    ),
  );
  // The savings ledger's totals (meta.savings of each run; docs/decisions/019).
  const savings = {
    shownTokens: registry.add(
      new Counter(
        'isocode_savings_shown_tokens_total',
        'o200k tokens of the run_code description (SDK or compact index) the model was shown, summed over runs.',
      ),
    ),
    wireTokens: registry.add(
      new Counter(
        'isocode_savings_wire_tokens_total',
        'o200k tokens of the same catalogs as JSON wire (name, description, input and output schemas), summed over runs.',
      ),
    ),
    nestedBytes: registry.add(
      new Counter(
        'isocode_savings_nested_result_bytes_total',
        'Bytes of JSON of nested results that stayed in the sandbox.',
      ),
    ),
    nestedTokens: registry.add(
      new Counter(
        'isocode_savings_nested_result_tokens_total',
        'o200k tokens of nested results that stayed in the sandbox (estimated from character classes).',
      ),
    ),
    returnedBytes: registry.add(
      new Counter('isocode_savings_returned_bytes_total', 'Bytes run_code returned to the model.'),
    ),
    returnedTokens: registry.add(
      new Counter(
        'isocode_savings_returned_tokens_total',
        'o200k tokens run_code returned to the model (estimated from character classes).',
      ),
    ),
  };
  const stats = (): ReturnType<Runtime['stats']> => runtime.stats();
  registry.add(new Gauge('isocode_http_requests_in_flight', 'Requests being served.', inFlight));
  registry.add(
    new Gauge(
      'isocode_runs_in_flight',
      'run_code executions in progress in the runtime.',
      () => stats().liveRuns,
    ),
  );
  const runner = (): ReturnType<Runtime['stats']>['runner'] => stats().runner;
  const workers = (): WorkerPoolStats | undefined => runner()?.sandbox.workers;
  registry.add(
    new Gauge(
      'isocode_isolates_alive',
      'V8 isolates alive in this process (in-process sandbox only; see isocode_sandbox_workers).',
      () => runner()?.sandbox.isolates?.alive ?? 0,
    ),
  );
  registry.add(
    new Gauge(
      'isocode_sandbox_wall',
      'Whether the second wall (bubblewrap around the sandbox workers and the checker; decision record 032) is up: 1 on, 0 off.',
      () => (runner()?.wall.active === true ? 1 : 0),
    ),
  );
  registry.add(
    new Gauge(
      'isocode_sandbox_wall_no_exec',
      'Whether a built sandbox worker behind the second wall also refuses execve once started (firejail post-exec filter; decision record 032): 1 on, 0 off.',
      () => (runner()?.wall.noExec === true ? 1 : 0),
    ),
  );
  registry.add(
    new Gauge(
      'isocode_sandbox_workers',
      'Sandbox worker processes alive (idle, starting or serving a run).',
      () => workers()?.workers ?? 0,
    ),
  );
  registry.add(
    new Gauge(
      'isocode_sandbox_workers_busy',
      'Sandbox worker processes serving a run.',
      () => workers()?.busy ?? 0,
    ),
  );
  registry.add(
    new Gauge(
      'isocode_sandbox_rss_bytes',
      'Resident memory of all sandbox worker processes at the last poll.',
      () => workers()?.rssBytes ?? 0,
    ),
  );
  registry.add(
    new Gauge(
      'isocode_sandbox_worker_restarts',
      'Sandbox worker processes that crashed or were killed (memory, CPU, wall clock, idle burn, retired after an unclean run) since start.',
      () => {
        const w = workers();
        return w === undefined ? 0 : w.crashed + Object.values(w.killed).reduce((a, b) => a + b, 0);
      },
    ),
  );
  registry.add(
    new Gauge(
      'isocode_runs_queued',
      'Programs waiting for a run slot (admission control).',
      () => runner()?.admission.queued ?? 0,
    ),
  );
  registry.add(
    new Gauge(
      'isocode_runs_rejected',
      'Programs refused with OVERLOADED since start (a counter; exposed as a gauge of the total).',
      () => runner()?.admission.rejected ?? 0,
    ),
  );

  // The host's event-loop delay, read once per exposition (quantiles and max since the previous one).
  const loop = monitorEventLoop();
  let lag: EventLoopLag = loop.read();
  registry.add(
    new Summary(
      'isocode_event_loop_lag_seconds',
      'Event-loop delay of the host process (quantiles since the previous scrape; sum and count since start).',
      () => ({ quantiles: lag.quantiles, sum: lag.sumSeconds, count: lag.count }),
    ),
  );
  registry.add(
    new Gauge(
      'isocode_event_loop_lag_max_seconds',
      'Longest event-loop delay of the host process since the previous scrape.',
      () => lag.maxSeconds,
    ),
  );

  const onEvent = (event: ExecutorEvent): void => {
    if (event.type !== 'tool/result' || event.name === RUN_CODE) return;
    const isNested = event.parentId !== undefined;
    const outcome = event.ok ? 'ok' : 'error';
    toolCalls.inc({ nested: String(isNested), outcome });
    if (isNested) nested.inc({ outcome });
    toolLatency.observe(event.durationMs / 1000, { nested: String(isNested) });
  };
  const unsubscribe = runtime.on(onEvent);

  return {
    request: (route, status) => requests.inc({ route, status: String(status) }),
    run(result) {
      runs.inc({ outcome: result.ok ? 'ok' : 'error' });
      runLatency.observe(result.meta.durationMs / 1000);
      const l = result.meta.savings;
      if (l) {
        savings.shownTokens.inc({}, l.shownTokens);
        savings.wireTokens.inc({}, l.wireTokens);
        savings.nestedBytes.inc({}, l.nestedResultBytes);
        savings.nestedTokens.inc({}, l.nestedResultTokens);
        savings.returnedBytes.inc({}, l.returnedBytes);
        savings.returnedTokens.inc({}, l.returnedTokens);
      }
      if (!result.ok) {
        const kind = result.error.details?.['kind'];
        failures.inc({ code: result.error.code, kind: typeof kind === 'string' ? kind : 'none' });
      }
    },
    render() {
      lag = loop.read();
      return registry.render();
    },
    dispose() {
      unsubscribe();
      loop.dispose();
    },
  };
}
