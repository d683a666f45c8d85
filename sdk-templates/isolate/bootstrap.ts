/**
 * The entry module of the isolate side. The host evaluates the modules while warming the isolate
 * (so `primordials.ts` captures the intrinsics before any guest code exists), calls `lockdown()`
 * once, then per run calls `install(dispatchRef, logRef, tickRef, optionsJson)`: it captures the
 * host references in closures, builds `tools`, `console` and `ToolCallError` on the global, and returns
 * the runner the host calls with the program function. Nothing installed on the global leads to a
 * host reference or to these functions.
 */
import { createBridge } from './bridge.js';
import { createConsole } from './console.js';
import { ToolCallError } from './errors.js';
import { createWire, type HostRef } from './host-ref.js';
import { lockdown as applyLockdown } from './lockdown.js';
import type { InstallOptions } from './protocol.js';
import { JSONParse, ObjectDefineProperty } from './primordials.js';
import { createRunner } from './runner.js';
import { buildTools } from './tools.js';

let locked = false;
let installed = false;

/** Hardens the global (see `lockdown.ts`). Called once per context, before `install`. */
export function lockdown(): void {
  if (locked) return;
  applyLockdown();
  locked = true;
}

function isPositiveInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

/**
 * Installs the program's scope and returns the runner. May be called once per context.
 * @param dispatchRef host function `(tool, argsJson) → Promise<tagged reply>`
 * @param logRef host function `(level, text) → void`
 * @param tickRef host function `() → Promise<''>` (the round trip before the program starts)
 * @param optionsJson JSON of `InstallOptions`
 */
export function install(
  dispatchRef: HostRef,
  logRef: HostRef,
  tickRef: HostRef,
  optionsJson: string,
): (program: unknown) => Promise<string> {
  if (!locked || installed)
    throw new Error('install: lockdown() must run first, and install() only once');
  installed = true;
  const options = JSONParse(optionsJson) as InstallOptions;
  const { maxCalls, maxArgBytes, maxLogBytes, maxResultBytes } = options;
  if (![maxCalls, maxArgBytes, maxLogBytes, maxResultBytes].every(isPositiveInteger)) {
    throw new Error('install: invalid limits');
  }
  const wire = createWire();
  const callTool = createBridge(dispatchRef, { maxCalls, maxArgBytes }, wire);
  const tools = buildTools(options.bindings, callTool);
  const global = globalThis as unknown as Record<string, unknown>;
  ObjectDefineProperty(global, 'tools', {
    value: tools,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  ObjectDefineProperty(global, 'console', {
    value: createConsole(logRef, maxLogBytes, wire),
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
  return createRunner(tickRef, maxResultBytes, wire);
}
