/**
 * What every baseline shares: type stripping with oxc-transform, and the guest-side JS that
 * turns a list of dotted tool names into the nested `tools` object a program calls
 * (the shape a generated SDK binding has).
 */
import { transformSync } from 'oxc-transform';

/** The name of the async function a compiled program is wrapped in. */
export const PROGRAM_FUNCTION = '__program';

/**
 * Strips types from a program and wraps it as `async function __program(tools, console)`,
 * so top-level `await` and `return` work. Throws a SyntaxError on a parse error.
 */
export function compileProgram(programTs: string): string {
  const wrapped = `async function ${PROGRAM_FUNCTION}(tools, console) {\n${programTs}\n}\n`;
  const out = transformSync('program.ts', wrapped, { lang: 'ts', sourceType: 'script' });
  const first = out.errors[0];
  if (first !== undefined) throw new SyntaxError(`program does not parse: ${first.message}`);
  return out.code;
}

/**
 * Guest-side JS defining `__makeTools(names, call)`: a null-prototype tree where
 * `tools.kv.get(args)` calls `call('kv.get', args)`.
 */
export const MAKE_TOOLS_JS = `
function __makeTools(names, call) {
  const root = Object.create(null);
  for (const name of names) {
    const parts = name.split('.');
    let node = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const key = parts[i];
      if (!Object.prototype.hasOwnProperty.call(node, key)) node[key] = Object.create(null);
      node = node[key];
    }
    node[parts[parts.length - 1]] = (args) => call(name, args === undefined ? {} : args);
  }
  return root;
}`;

/** Guest-side JS defining `__makeConsole(logs)`: a console whose output is kept in `logs`. */
export const MAKE_CONSOLE_JS = `
function __makeConsole(logs) {
  const line = (...values) => { if (logs.length < 1000) logs.push(values.map((v) => typeof v === 'string' ? v : JSON.stringify(v)).join(' ')); };
  return { log: line, info: line, warn: line, error: line, debug: line };
}`;

/** Host-side equivalent of `__makeTools`, for engines that share the host realm. */
export function makeHostTools(
  names: readonly string[],
  call: (name: string, args: unknown) => Promise<unknown>,
): Record<string, unknown> {
  const root: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const name of names) {
    const parts = name.split('.');
    let node = root;
    for (const key of parts.slice(0, -1)) {
      const existing = Object.hasOwn(node, key) ? node[key] : undefined;
      const child =
        typeof existing === 'object' && existing !== null
          ? (existing as Record<string, unknown>)
          : (Object.create(null) as Record<string, unknown>);
      node[key] = child;
      node = child;
    }
    node[parts[parts.length - 1] ?? name] = (args: unknown) =>
      call(name, args === undefined ? {} : args);
  }
  return root;
}

/** Deep-freezes a host object so programs sharing it cannot change it for the next run. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** A host-side tool table with own-property lookups only. */
export function toolTable<T extends { name: string }>(tools: readonly T[]): Map<string, T> {
  return new Map(tools.map((tool) => [tool.name, tool]));
}
