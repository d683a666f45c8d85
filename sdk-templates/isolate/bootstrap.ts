/**
 * The entry module of the isolate side. The host links these modules into one script
 * (`src/sandbox/isolate-link.ts`), compiles it once per isolate and runs it in every fresh context:
 * the modules evaluate (so `primordials.ts` captures THIS context's intrinsics before any guest code
 * exists) and the script completes with {@link prepare}, which locks the global down and hands the
 * host one function, {@link entry} (as a reference; one reference, so preparing a context needs no
 * further call). The host calls it with `applyIgnored`: once per context to install the scope of
 * its one run ({@link install}: it captures the run's host port in closures and builds `tools`,
 * `console`, `ToolCallError` and the start hook on the global), then once per reply to a binding
 * call ({@link deliver}), or once for replies that arrived together ({@link deliverMany}). The program's own script starts the program through the hook, passing
 * the run's limits. Nothing installed on the global leads to a host reference or to these
 * functions.
 */
import { createBridge, type Bridge } from './bridge.js';
import { createConsole } from './console.js';
import { ToolCallError } from './errors.js';
import { installWebGlobals } from './globals.js';
import { createSend, createWire, type HostRef, type Send, type Wire } from './host-ref.js';
import { callTrace, durable, installClock, startTape } from './durable.js';
import { lockdown, removeGlobals } from './lockdown.js';
import {
  OUTCOME,
  OUTCOME_SEPARATOR,
  PROGRAM_HOOK,
  SNAPSHOT_CLAIM,
  type RunLimits,
} from './protocol.js';
import { JSONParse, ObjectCreate, ObjectDefineProperty, stringSlice } from './primordials.js';
import { createRunner, sendOutcome } from './runner.js';
import { buildTools } from './tools.js';

/** The run of this context, once started. */
let wire: Wire | undefined;
let bridge: Bridge | undefined;
let prepared = false;

/**
 * Installs the web globals and the clock and hardens the global (see `lockdown.ts`), all but the
 * removal of globals, which each context does itself.
 */
function harden(): void {
  if (prepared) throw new Error('prepare: already called in this context');
  prepared = true;
  installWebGlobals();
  installClock();
  // Guest code scheduled by the collector (FinalizationRegistry callbacks) never runs once the
  // program has settled: the isolate may serve the next run by then.
  lockdown(() => wire !== undefined && wire.closed);
}

/**
 * Hardens this context's global (see `lockdown.ts`) and returns {@link entry}. The bootstrap
 * script completes with it; it runs once per context.
 */
export function prepare(): typeof entry {
  harden();
  removeGlobals();
  return entry;
}

/**
 * The bootstrap of a V8 startup snapshot: {@link harden} runs while the snapshot is taken, and the
 * context it captures keeps {@link claim} on the global, non-enumerable, until a context made from
 * the snapshot claims it (no guest code has run in that context yet).
 */
export function prepareSnapshot(): void {
  harden();
  ObjectDefineProperty(globalThis, SNAPSHOT_CLAIM, {
    value: claim,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}

/**
 * Run once in each context deserialized from the snapshot, before anything else: removes itself
 * from the global, removes the globals every context removes (`removeGlobals`), and returns
 * {@link entry}. Throws (and the context is not used) if any of it does not take effect.
 */
function claim(): typeof entry {
  const global = globalThis as unknown as Record<string, unknown>;
  if (!delete global[SNAPSHOT_CLAIM] || SNAPSHOT_CLAIM in global)
    throw new Error('claim: cannot remove the claim');
  if (wire !== undefined) throw new Error('claim: the context is already used');
  removeGlobals();
  return entry;
}

/**
 * What the host calls: `(port, index)` installs the scope ({@link install}), `(id, reply)`
 * delivers a reply to a binding call ({@link deliver}), `(indexJson, replies)` several
 * ({@link deliverMany}). Never throws.
 */
export function entry(a: unknown, b: unknown): void {
  if (typeof a === 'number') deliver(a, b);
  else if (typeof a === 'string') deliverMany(a, b);
  else install(a as HostRef, b);
}

/**
 * The host's reply to binding call `id` (see `bridge.ts`). Never throws; unknown ids and replies
 * after the run has settled are ignored.
 */
function deliver(id: number, reply: unknown): void {
  bridge?.deliver(id, reply);
}

/**
 * Replies that reached the host's side together, delivered in their order within one call: `index`
 * is the JSON of `[[id, length], …]`, `replies` the replies one after another (no copy or escaping
 * of a reply on either side). Each is delivered as {@link deliver} does; the program's reactions
 * run once all are in. Never throws; a malformed index delivers nothing more.
 */
function deliverMany(index: string, replies: unknown): void {
  if (typeof replies !== 'string') return;
  try {
    const entries = JSONParse(index) as unknown;
    if (typeof entries !== 'object' || entries === null) return;
    const list = entries as Record<number, unknown> & { length?: unknown };
    const count = list.length;
    if (typeof count !== 'number') return;
    let at = 0;
    for (let i = 0; i < count; i++) {
      const entry = list[i] as Record<number, unknown> | null;
      const id = entry?.[0];
      const length = entry?.[1];
      if (typeof id !== 'number' || typeof length !== 'number') return;
      deliver(id, stringSlice(replies, at, at + length));
      at += length;
    }
  } catch {
    // only the host calls this; a broken index is dropped
  }
}

function isPositiveInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

function setupFailed(send: Send, message: string): void {
  if (wire !== undefined) wire.closed = true;
  sendOutcome(send, '0' + OUTCOME_SEPARATOR + OUTCOME.setupFailed + message);
}

/**
 * Installs the program's scope: `tools`, `console` and `ToolCallError` on the global, and the hook
 * `PROGRAM_HOOK` through which the program's script (see `protocol.ts`) hands over the run's
 * limits and starts the program. Called once per context — usually while the context is prepared,
 * before a run needs it, with the tools of the isolate's previous run (the host installs again in a
 * fresh context when a run needs other tools). Never throws: a setup failure is reported as an `X`
 * outcome.
 * @param port the run's host function, receiving one-way messages (see `MESSAGE`): binding calls
 * (answered through {@link deliver}), console entries and, once, the outcome
 * @param index the tool index of the scope (`TOOL_INDEX`): `tools` is built from it lazily
 */
function install(port: HostRef, index: unknown): void {
  let send: Send;
  try {
    send = createSend(port);
  } catch {
    return;
  }
  if (!prepared || wire !== undefined || typeof index !== 'string') {
    setupFailed(send, 'install: the context is not prepared, or already used');
    return;
  }
  try {
    // Filled by the hook, before the program runs; read by the bridge, console and runner.
    const limits = ObjectCreate(null) as RunLimits;
    limits.maxCalls = 1;
    limits.maxArgBytes = 1;
    limits.maxLogBytes = 1;
    limits.maxResultBytes = 1;
    const runWire = createWire();
    wire = runWire;
    bridge = createBridge(send, limits, runWire, durable, callTrace);
    const tools = buildTools(index, bridge.callTool);
    const global = globalThis as unknown as Record<string, unknown>;
    ObjectDefineProperty(global, 'tools', {
      value: tools,
      writable: false,
      enumerable: false,
      configurable: false,
    });
    ObjectDefineProperty(global, 'console', {
      value: createConsole(send, limits, runWire),
      writable: true,
      enumerable: false,
      configurable: true,
    });
    ObjectDefineProperty(global, 'ToolCallError', {
      value: ToolCallError,
      writable: true,
      enumerable: false,
      configurable: true,
    });
    const run = createRunner(send, limits, runWire);
    // Removed before the program's function expression is even evaluated: no guest code sees it.
    const hook = (
      maxCalls: unknown,
      maxArgBytes: unknown,
      maxLogBytes: unknown,
      maxResultBytes: unknown,
      recorded: unknown,
      thunk: unknown,
    ): void => {
      delete global[PROGRAM_HOOK];
      if (
        !isPositiveInteger(maxCalls) ||
        !isPositiveInteger(maxArgBytes) ||
        !isPositiveInteger(maxLogBytes) ||
        !isPositiveInteger(maxResultBytes)
      ) {
        setupFailed(send, 'start: invalid limits');
        return;
      }
      if (!startTape(recorded)) {
        setupFailed(send, 'start: invalid recorded values');
        return;
      }
      limits.maxCalls = maxCalls;
      limits.maxArgBytes = maxArgBytes;
      limits.maxLogBytes = maxLogBytes;
      limits.maxResultBytes = maxResultBytes;
      run(thunk);
    };
    ObjectDefineProperty(global, PROGRAM_HOOK, {
      value: hook,
      writable: false,
      enumerable: false,
      configurable: true,
    });
  } catch {
    setupFailed(send, 'install: the scope could not be installed');
  }
}
