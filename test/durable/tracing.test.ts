/** OpenTelemetry spans of runs, nested calls and approvals, read from the SDK's in-memory exporter. */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  context,
  ROOT_CONTEXT,
  trace,
  type Context,
  type ContextManager,
} from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ATTR, instrument, SPAN } from '../../src/durable/tracing.js';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';

/** The context manager an application would register (the SDK's Node package is not a dependency). */
class AlsContextManager implements ContextManager {
  readonly #als = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#als.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#als.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#als.disable();
    return this;
  }
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
let rt: Runtime;
let stop: () => void;

beforeAll(async () => {
  context.setGlobalContextManager(new AlsContextManager());
  rt = await createRuntime({
    tools: [
      defineTool({
        name: 'work',
        description: 'Does work and traces it.',
        input: z.object({ n: z.number() }),
        isConcurrencySafe: true,
        execute: ({ n }: { n: number }) =>
          tracer.startActiveSpan('tool.inner', (span) => {
            span.end();
            return n * 2;
          }),
      }),
      defineTool({
        name: 'guarded',
        description: 'Needs an approval.',
        input: z.object({}),
        execute: () => 'done',
      }),
    ],
    scopes: { default: { mode: 'code' }, t1: { mode: 'code' } },
    hooks: {
      preExecute: (ctx) =>
        ctx.call.name === 'guarded' ? { action: 'ask', message: 'sure?' } : undefined,
    },
    approver: (req) => (req.scope === 't1' ? 'rejected' : 'allowed-once'),
    codeMode: { limits: { wallMs: 3_000, cpuMs: 200 }, typecheck: 'off' },
  });
  stop = instrument(rt, { tracer });
});
afterAll(async () => {
  stop();
  await rt.close();
  context.disable();
});
beforeEach(() => exporter.reset());

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const byName = (name: string): ReadableSpan[] => spans().filter((s) => s.name === name);
const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;

describe('tracing', () => {
  it('gives a run one span, each nested call a child, and a tool its own spans under its call', async () => {
    const r = await rt.execute({
      name: 'run_code',
      args: {
        code: 'const [a, b] = await Promise.all([tools.work({ n: 1 }), tools.work({ n: 2 })]); return a + b;',
        description: 'two calls',
      },
    });
    expect(r.ok).toBe(true);
    const [run] = byName(SPAN.run);
    expect(run?.attributes[ATTR.outcome]).toBe('ok');
    expect(run?.attributes[ATTR.scope]).toBe('default');
    const calls = byName(SPAN.call);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(parentOf(call)).toBe(run?.spanContext().spanId);
      expect(call.spanContext().traceId).toBe(run?.spanContext().traceId);
      expect(call.attributes[ATTR.tool]).toBe('work');
    }
    const inner = byName('tool.inner');
    expect(inner).toHaveLength(2);
    const callIds = new Set(calls.map((c) => c.spanContext().spanId));
    for (const s of inner) expect(callIds.has(parentOf(s) ?? '')).toBe(true);
  });

  it('nests a direct call under the caller’s active span', async () => {
    await tracer.startActiveSpan('request', async (request) => {
      await rt.execute({ name: 'work', args: { n: 3 } });
      request.end();
    });
    const [call] = byName(SPAN.call);
    const [request] = byName('request');
    expect(parentOf(call!)).toBe(request?.spanContext().spanId);
  });

  it('records an approval wait as a span with its outcome, under the call', async () => {
    const ok = await rt.execute({
      name: 'run_code',
      args: { code: 'return await tools.guarded({});', description: 'ask' },
    });
    expect(ok.ok).toBe(true);
    const [approval] = byName(SPAN.approval);
    const call = byName(SPAN.call).find((c) => c.attributes[ATTR.tool] === 'guarded');
    expect(approval?.attributes[ATTR.approval]).toBe('allowed-once');
    expect(parentOf(approval!)).toBe(call?.spanContext().spanId);

    exporter.reset();
    const no = await rt.execute(
      {
        name: 'run_code',
        args: {
          code: 'try { await tools.guarded({}); } catch (e) { return (e as any).code; }',
          description: 'ask',
        },
      },
      { scope: 't1' },
    );
    expect(no.ok).toBe(true);
    const [rejected] = byName(SPAN.approval);
    expect(rejected?.attributes[ATTR.approval]).toBe('rejected');
    const denied = byName(SPAN.call).find((c) => c.attributes[ATTR.tool] === 'guarded');
    expect(denied?.attributes[ATTR.outcome]).toBe('DENIED');
    expect(denied?.attributes[ATTR.reason]).toBe('approval-rejected');
    expect(denied?.attributes[ATTR.scope]).toBe('t1');
  });

  it('marks the limit a run hit', async () => {
    const r = await rt.execute({
      name: 'run_code',
      args: { code: 'for (;;) {}', description: 'spin' },
    });
    expect(r.ok).toBe(false);
    const [run] = byName(SPAN.run);
    expect(run?.attributes[ATTR.outcome]).toBe('CODE_RUN_FAILED');
    expect(run?.attributes[ATTR.limit]).toBe('timeout');
    expect(run?.attributes[ATTR.failureKind]).toBe('timeout');
  });

  it('stops: no span after the function it returned is called', async () => {
    const own = await createRuntime({
      tools: [defineTool({ name: 'x', description: 'x', input: z.object({}), execute: () => 1 })],
      codeMode: false,
    });
    const off = instrument(own, { tracer });
    await own.execute({ name: 'x', args: {} });
    expect(byName(SPAN.call)).toHaveLength(1);
    off();
    exporter.reset();
    await own.execute({ name: 'x', args: {} });
    expect(spans()).toHaveLength(0);
    expect(trace.getActiveSpan()).toBeUndefined();
    await own.close();
  });
});
