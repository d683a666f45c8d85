/**
 * OpenTelemetry spans of runs and calls, through `@opentelemetry/api` only (no SDK: the
 * application registers its tracer provider and context manager, or passes a tracer).
 *
 * {@link instrument} installs two things on a runtime, and nothing when it is not called (a
 * runtime without tracing pays nothing): an event listener, which opens a span when a call enters
 * the executor (`tool/call`), a child span while it waits for an approval (`approval/asked` →
 * `approval/decided`, with the outcome) and closes the call's span with its outcome code
 * (`tool/result`); and an execute middleware, which makes the call's span the active one around
 * the tool's body (`context.with`), so that a tool's own spans nest under its call. A nested call
 * of a `run_code` program finds its parent span by the run's call id (`parentId`), not through the
 * async context: the call arrives from a sandbox process over IPC, where no context survives.
 */
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { ExecutorEvent, EventListener } from '../executor/events.js';
import type { BodyOutcome, ExecuteMiddleware, Hooks } from '../executor/types.js';
import { requireOptional } from '../optional.js';
import { RUN_CODE } from '../tools/names.js';

/** `@opentelemetry/api`, an optional peer (decision 038): loaded by the first {@link instrument}. */
type Otel = Pick<typeof OtelApi, 'context' | 'trace' | 'SpanStatusCode'>;

/** The tracer name spans are created with when no tracer is given. */
export const TRACER_NAME = 'isocode';

/** Span names. */
export const SPAN = {
  /** One run_code execution (a program and its nested calls). */
  run: 'isocode.run',
  /** One tool call (direct, or nested in a run). */
  call: 'isocode.call',
  /** The wait for a human's (or an approver's) decision on one call. */
  approval: 'isocode.approval',
} as const;

/** Span attribute names. */
export const ATTR = {
  scope: 'isocode.scope',
  tool: 'isocode.tool',
  callId: 'isocode.call_id',
  parentId: 'isocode.parent_id',
  /** `ok`, or the error code of a failed call. */
  outcome: 'isocode.outcome',
  /** The denial reason of a DENIED call. */
  reason: 'isocode.deny_reason',
  /** The approval outcome (`allowed-once`, `rejected`, `cancelled`, `unavailable`). */
  approval: 'isocode.approval.outcome',
  /** The limit a run or a call hit: a run's failure kind (`timeout`, `memory`, `output-limit`) or `LIMIT_EXCEEDED`. */
  limit: 'isocode.limit',
  /** A failed run's kind (`exception`, `typecheck`, `timeout`, …). */
  failureKind: 'isocode.run.failure_kind',
  /** The run's durable id, when it runs as a durable run. */
  runId: 'isocode.run_id',
} as const;

/** Options of {@link instrument}. */
export interface TracingOptions {
  /**
   * Where spans go.
   * @default trace.getTracer("isocode") — the globally registered provider (a no-op until one is)
   */
  tracer?: Tracer | undefined;
}

/** What {@link instrument} needs of a runtime. */
export interface Instrumentable {
  on(listener: EventListener): () => void;
  use(hooks: Hooks): () => void;
}

/** Failure kinds of a run that mean a limit was hit. */
const LIMIT_KINDS = new Set(['timeout', 'memory', 'output-limit', 'host-limit']);

interface Open {
  span: Span;
  /** The span as the active context, made on first use. */
  ctx: Context | undefined;
  approval: Span | undefined;
}

/** Spans of calls and approvals, driven by executor events (see the module's description). */
export class CallSpans {
  readonly #tracer: Tracer;
  readonly #api: Otel;
  readonly #open = new Map<string, Open>();

  constructor(tracer: Tracer, api: Otel) {
    this.#tracer = tracer;
    this.#api = api;
  }

  /** Calls whose span is open. */
  get size(): number {
    return this.#open.size;
  }

  /** The context in which call `callId`'s span is active (undefined once it has ended). */
  contextOf(callId: string): Context | undefined {
    const open = this.#open.get(callId);
    if (open === undefined) return undefined;
    return (open.ctx ??= this.#api.trace.setSpan(this.#api.context.active(), open.span));
  }

  /** The open span of call `callId`. */
  spanOf(callId: string): Span | undefined {
    return this.#open.get(callId)?.span;
  }

  /** Feeds one executor event. Never throws. */
  readonly listener: EventListener = (event) => {
    try {
      this.#on(event);
    } catch {
      // tracing never breaks a call
    }
  };

  #on(event: ExecutorEvent): void {
    switch (event.type) {
      case 'tool/call':
        this.#start(event);
        return;
      case 'approval/asked': {
        const open = this.#open.get(event.callId);
        if (open === undefined) return;
        open.approval?.end();
        open.approval = this.#tracer.startSpan(
          SPAN.approval,
          { attributes: { [ATTR.tool]: event.name, [ATTR.scope]: event.scope } },
          this.#api.trace.setSpan(this.#api.context.active(), open.span),
        );
        return;
      }
      case 'approval/decided': {
        const open = this.#open.get(event.callId);
        const span = open?.approval;
        if (open === undefined || span === undefined) return;
        open.approval = undefined;
        span.setAttribute(ATTR.approval, event.outcome);
        if (event.outcome !== 'allowed-once')
          span.setStatus({
            code: this.#api.SpanStatusCode.ERROR,
            message: `approval ${event.outcome}`,
          });
        span.end();
        return;
      }
      case 'tool/result': {
        const open = this.#open.get(event.callId);
        if (open === undefined) return;
        this.#open.delete(event.callId);
        open.approval?.end();
        const { span } = open;
        span.setAttribute(ATTR.outcome, event.ok ? 'ok' : (event.code ?? 'INTERNAL_ERROR'));
        if (!event.ok) {
          if (event.reason !== undefined) span.setAttribute(ATTR.reason, event.reason);
          if (event.code === 'LIMIT_EXCEEDED') span.setAttribute(ATTR.limit, 'LIMIT_EXCEEDED');
          span.setStatus({
            code: this.#api.SpanStatusCode.ERROR,
            message: event.code ?? 'INTERNAL_ERROR',
          });
        }
        span.end();
        return;
      }
      default:
        return;
    }
  }

  #start(event: ExecutorEvent & { type: 'tool/call' }): void {
    const parent = event.parentId === undefined ? undefined : this.#open.get(event.parentId);
    const attributes: Attributes = {
      [ATTR.scope]: event.scope,
      [ATTR.tool]: event.name,
      [ATTR.callId]: event.callId,
    };
    if (event.parentId !== undefined) attributes[ATTR.parentId] = event.parentId;
    // A direct call nests under whatever is active where it was made (an HTTP request's span).
    const base = this.#api.context.active();
    const span = this.#tracer.startSpan(
      event.name === RUN_CODE && parent === undefined ? SPAN.run : SPAN.call,
      { attributes, startTime: event.time },
      parent === undefined ? base : this.#api.trace.setSpan(base, parent.span),
    );
    this.#open.get(event.callId)?.span.end(); // a reused id: the older span ends here
    this.#open.set(event.callId, { span, ctx: undefined, approval: undefined });
  }

  /** Ends every open span (tracing stops). */
  endAll(): void {
    for (const open of this.#open.values()) {
      open.approval?.end();
      open.span.end();
    }
    this.#open.clear();
  }

  /** Records what the body's outcome says about limits (a run's failure kind). */
  noteOutcome(callId: string, outcome: BodyOutcome): void {
    if (outcome.ok) return;
    const span = this.#open.get(callId)?.span;
    const kind = outcome.details?.kind;
    if (span === undefined || typeof kind !== 'string') return;
    span.setAttribute(ATTR.failureKind, kind);
    if (LIMIT_KINDS.has(kind)) span.setAttribute(ATTR.limit, kind);
  }

  /**
   * The execute middleware: the call's span is the active one while its body runs (a tool's own
   * spans nest under it).
   */
  readonly middleware: ExecuteMiddleware = async (ctx, next) => {
    const id = ctx.call.id;
    const active = this.contextOf(id);
    const outcome =
      active === undefined ? await next() : await this.#api.context.with(active, next);
    this.noteOutcome(id, outcome);
    return outcome;
  };
}

/**
 * Traces every call of `runtime` (see the module's description); returns a function that stops
 * it. Spans already open are ended when it stops.
 */
export function instrument(runtime: Instrumentable, options: TracingOptions = {}): () => void {
  const api = requireOptional<Otel>('@opentelemetry/api');
  const spans = new CallSpans(options.tracer ?? api.trace.getTracer(TRACER_NAME), api);
  const off = runtime.on(spans.listener);
  const unuse = runtime.use({ execute: spans.middleware });
  return () => {
    off();
    unuse();
    spans.endAll();
  };
}
