/**
 * The savings ledger: what code mode kept out of the model's context in one run_code call. The
 * catalog figures (the tool description the model was shown vs the same catalog as JSON wire) are
 * tokenized once per SDK text; nested results and the returned text are measured as they arrive
 * with token counts estimated from character classes ({@link estimateTokens}): a program never makes
 * the host run the tokenizer (a CJK text of 16 KiB took it ~1–3.5 s; docs/decisions/029-host-work.md).
 */
import { estimateTokens, tokenCountsExact } from '../tokens.js';
import type { ToolResult } from '../executor/types.js';
import { renderRunValue } from './render.js';
import type { CodeRunner, RunCodeValue, RunnerContext } from './types.js';

/** What code mode saved in one run_code call (`meta.savings` of its result). */
export interface SavingsLedger {
  /** o200k tokens of run_code's description as the model was shown it (full SDK or compact index). */
  shownTokens: number;
  /** o200k tokens of the scope's SDK text (what programs are checked against). */
  sdkTokens: number;
  /** o200k tokens of the same catalog as JSON wire (name, description, input and output schemas). */
  wireTokens: number;
  /** Nested tool calls the program made in this one model turn. */
  nestedCalls: number;
  /** Bytes of JSON of the successful nested results (they stayed in the sandbox). */
  nestedResultBytes: number;
  /** Tokens of those results as JSON (estimated, see `tokensEstimated`). */
  nestedResultTokens: number;
  /** Bytes of what run_code returned to the model (logs and result, as rendered). */
  returnedBytes: number;
  /** Tokens of what run_code returned to the model (estimated, see `tokensEstimated`). */
  returnedTokens: number;
  /**
   * True when some nested or returned token count is an estimate: every non-empty text is estimated
   * from its character classes, never tokenized (the catalog figures are exact, except without the
   * optional gpt-tokenizer, when they are estimates too).
   */
  tokensEstimated: boolean;
}

/** Estimated tokens of `text`: no tokenizer on the host for anything a program sent or returned. */
function runTokens(text: string): { tokens: number; estimated: boolean } {
  return { tokens: estimateTokens(text), estimated: text.length > 0 };
}

/** The catalog figures of a scope: tokens shown, of the SDK, and of the JSON wire. */
export interface CatalogTokens {
  shownTokens: number;
  sdkTokens: number;
  wireTokens: number;
}

/** What the ledger needs of the runtime. */
export interface LedgerSource {
  /** Whether runs are measured at all; `false` only forwards nested results. @default true */
  measure?: boolean | undefined;
  /** The catalog figures of a scope (cached per SDK text by the caller). */
  catalogTokens(scope: string): CatalogTokens;
  /** Receives every successful nested result (output inference); never blocks the call. */
  onNestedResult?:
    ((scope: string, tool: string, value: ToolResult & { ok: true }) => void) | undefined;
}

/** The per-run accumulator. */
class RunLedger {
  calls = 0;
  bytes = 0;
  tokens = 0;
  estimated = false;

  nested(r: ToolResult): void {
    this.calls += 1;
    if (!r.ok) return;
    let json: string;
    try {
      json = JSON.stringify(r.value) ?? 'null';
    } catch {
      return; // not JSON: the sandbox refuses it anyway
    }
    this.bytes += Buffer.byteLength(json);
    const t = runTokens(json);
    this.tokens += t.tokens;
    this.estimated ||= t.estimated;
  }

  settle(catalog: CatalogTokens, value: RunCodeValue | undefined): SavingsLedger {
    const returned = value === undefined ? '' : renderRunValue(value);
    const r = runTokens(returned);
    return {
      ...catalog,
      nestedCalls: this.calls,
      nestedResultBytes: this.bytes,
      nestedResultTokens: this.tokens,
      returnedBytes: Buffer.byteLength(returned),
      returnedTokens: r.tokens,
      tokensEstimated: this.estimated || r.estimated || !tokenCountsExact(),
    };
  }
}

/** Ledgers kept at most, should a caller never take them. */
const MAX_SETTLED = 10_000;

/**
 * Ledgers of settled runs by run_code call id, until the runtime takes them. Call ids are chosen
 * by callers: when two live runs share one, neither gets a ledger (never another caller's figures).
 */
export class LedgerBook {
  readonly #settled = new Map<string, SavingsLedger>();
  readonly #live = new Map<string, number>();
  readonly #ambiguous = new Set<string>();

  /** Takes (and forgets) the ledger of run_code call `callId`. */
  take(callId: string): SavingsLedger | undefined {
    const l = this.#settled.get(callId);
    this.#settled.delete(callId);
    if (!this.#ambiguous.has(callId)) return l;
    if (!this.#live.has(callId)) this.#ambiguous.delete(callId);
    return undefined;
  }

  #start(callId: string): void {
    const n = this.#live.get(callId) ?? 0;
    if (n > 0 || this.#settled.has(callId)) this.#ambiguous.add(callId);
    this.#live.set(callId, n + 1);
  }

  #end(callId: string, ledger: SavingsLedger | undefined): void {
    const n = (this.#live.get(callId) ?? 1) - 1;
    if (n > 0) this.#live.set(callId, n);
    else this.#live.delete(callId);
    if (ledger === undefined || this.#ambiguous.has(callId)) return;
    this.#settled.set(callId, ledger);
    if (this.#settled.size > MAX_SETTLED)
      this.#settled.delete(this.#settled.keys().next().value as string);
  }

  /**
   * Wraps a runner: each run's nested calls are measured (and handed to `onNestedResult`), and
   * its ledger is kept under the run_code call id when the run settles, successful or not.
   */
  wrap(runner: CodeRunner, source: LedgerSource): CodeRunner {
    const measure = source.measure ?? true;
    const run: CodeRunner['run'] = async (program, ctx) => {
      // Without measuring, nested results only pass by when someone observes them.
      const ledger = measure ? new RunLedger() : undefined;
      const dispatch: RunnerContext['dispatch'] = async (...args) => {
        const r = await ctx.dispatch(...args);
        ledger?.nested(r);
        if (r.ok && source.onNestedResult) source.onNestedResult(ctx.scope, args[0], r);
        return r;
      };
      if (!ledger) return runner.run(program, source.onNestedResult ? { ...ctx, dispatch } : ctx);
      let value: RunCodeValue | undefined;
      this.#start(ctx.callId);
      try {
        value = await runner.run(program, { ...ctx, dispatch });
        return value;
      } finally {
        let settled: SavingsLedger | undefined;
        try {
          settled = ledger.settle(source.catalogTokens(ctx.scope), value);
        } catch {
          // a ledger never fails a run
        }
        this.#end(ctx.callId, settled);
      }
    };
    const wrapped: CodeRunner = { run };
    if (runner.check) wrapped.check = runner.check.bind(runner);
    if (runner.warmup) wrapped.warmup = runner.warmup.bind(runner);
    if (runner.reserve) wrapped.reserve = runner.reserve.bind(runner);
    if (runner.close) wrapped.close = runner.close.bind(runner);
    return wrapped;
  }
}
