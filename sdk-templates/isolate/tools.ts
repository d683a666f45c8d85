/**
 * The `tools` object: a tree of frozen, null-prototype objects whose leaves are frozen functions.
 * `tools.a.b(args)` calls tool `"a.b"` (the path ↔ name mapping comes from the SDK generator; the
 * host sends the tree already shaped, as a tool index: see `TOOL_INDEX` in `protocol.ts`). Only own
 * properties exist, so `tools.constructor`, `tools.__proto__` and `tools.toString` are undefined;
 * `run_code` is never a binding.
 *
 * Built lazily: a namespace is a proxy over its own null-prototype object, which gets a property
 * the first time the program names it (found by one search of the index: no parse of the whole
 * index, no function made for a tool the program never touches), and all of them — then frozen —
 * the first time the program asks about the whole object (its keys, whether it is frozen or
 * extensible, or any change to it). From the outside it is the frozen tree it always was: every
 * trap answers from the target after making what it reports, so the proxy invariants hold and a
 * property, once seen, keeps its value. A run against 1,000 tools costs what it costs against 10.
 * This code runs after the program has started: intrinsics only through `primordials.ts`.
 */
import {
  JSONParse,
  JSONStringify,
  ObjectCreate,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectHasOwn,
  ProxyCtor,
  ReflectDeleteProperty,
  ReflectDefineProperty,
  ReflectGet,
  ReflectGetOwnPropertyDescriptor,
  ReflectHas,
  ReflectIsExtensible,
  ReflectPreventExtensions,
  ReflectSetPrototypeOf,
  isArray,
  stringIndexOf,
  stringSlice,
} from './primordials.js';
import { TOOL_INDEX, TOOL_NODE } from './protocol.js';

/** A function on the `tools` tree. */
export type ToolFunction = (args?: unknown) => Promise<unknown>;

/** The reserved name of the code tool itself; never callable from a program. */
export const RESERVED_TOOL = 'run_code';

type CallTool = (tool: string, args: unknown, binding: ToolFunction) => Promise<unknown>;

/** A node found in the index: its kind, tool name (undefined for a pure namespace), line offset. */
interface Found {
  kind: string;
  tool: string | undefined;
  /** Where the node's line starts: its children's lines come after it. */
  at: number;
}

/**
 * `{ value, enumerable }` with a null prototype: a field a program added to `Object.prototype`
 * (`writable`, `get`) is never read as part of it.
 */
function dataDescriptor(value: unknown, enumerable: boolean): PropertyDescriptor {
  const descriptor = ObjectCreate(null) as PropertyDescriptor;
  descriptor.value = value;
  descriptor.enumerable = enumerable;
  return descriptor;
}

/** The index line of the node whose key is `key`, searched from offset `from`, or undefined. */
function find(index: string, key: string, from: number): Found | undefined {
  const needle = TOOL_INDEX.line + key + TOOL_INDEX.tool;
  const at = stringIndexOf(index, needle, from);
  if (at < 0) return undefined;
  const start = at + needle.length;
  const kind = stringSlice(index, start, start + 1);
  const end = stringIndexOf(index, TOOL_INDEX.line, start);
  const toolJson = stringSlice(index, start + 1, end < 0 ? index.length : end);
  const tool: unknown = toolJson === '' ? undefined : JSONParse(toolJson);
  return {
    kind,
    tool: typeof tool === 'string' && tool !== '' && tool !== RESERVED_TOOL ? tool : undefined,
    at,
  };
}

/** The names of the children of node `key` (`''`: the root), its line at `from`, in index order. */
function childNames(index: string, key: string, from: number): string[] {
  const needle = key === '' ? TOOL_INDEX.line : TOOL_INDEX.line + key + TOOL_INDEX.segment;
  const names: string[] = [];
  let count = 0;
  for (let at = stringIndexOf(index, needle, from); at >= 0;) {
    const start = at + needle.length;
    const tab = stringIndexOf(index, TOOL_INDEX.tool, start);
    if (tab < 0) break;
    // One JSON string token up to the tab is a child; more segments are a deeper node.
    const segments: unknown = JSONParse('[' + stringSlice(index, start, tab) + ']');
    if (isArray(segments) && segments.length === 1 && typeof segments[0] === 'string')
      ObjectDefineProperty(names, count++, dataDescriptor(segments[0], false));
    at = stringIndexOf(index, needle, tab);
  }
  return names;
}

function toolFunction(tool: string, callTool: CallTool): ToolFunction {
  // The function passes itself: a refusal's stack starts at the program's frame, below it.
  const fn: ToolFunction = (args?: unknown) => callTool(tool, args, fn);
  ObjectDefineProperty(fn, 'name', dataDescriptor(tool, false));
  return fn;
}

/** The value of node `key` of the tree. */
function node(index: string, key: string, found: Found, callTool: CallTool): object {
  const { tool } = found;
  if (tool !== undefined && found.kind === TOOL_NODE.tool)
    return ObjectFreeze(toolFunction(tool, callTool));
  if (tool !== undefined) {
    // A tool that is also a namespace (only bindings given by hand make one; the SDK never does): a
    // function with its children, made at once (they are lazy themselves).
    const fn = toolFunction(tool, callTool);
    const names = childNames(index, key, found.at);
    for (let i = 0; i < names.length; i++)
      defineChild(fn, index, key, found.at, names[i] as string, callTool);
    return ObjectFreeze(fn);
  }
  return namespace(index, key, found.at, callTool);
}

/** The key of child `name` of node `key`. */
function childKey(key: string, name: string): string {
  const segment = JSONStringify(name);
  return key === '' ? segment : key + TOOL_INDEX.segment + segment;
}

/**
 * Defines child `name` of node `key` (its line at `from`) on `target` if the index has it; true
 * when it exists.
 */
function defineChild(
  target: object,
  index: string,
  key: string,
  from: number,
  name: string,
  callTool: CallTool,
): boolean {
  if (ObjectHasOwn(target, name)) return true;
  if (name === '' || name === '__proto__') return false;
  const child = childKey(key, name);
  const found = find(index, child, from);
  if (found === undefined) return false;
  ObjectDefineProperty(target, name, dataDescriptor(node(index, child, found, callTool), true));
  return true;
}

/** A namespace: a proxy over a null-prototype object that gets its properties as they are named. */
function namespace(index: string, key: string, from: number, callTool: CallTool): object {
  const target = ObjectCreate(null) as object;
  /** Once complete: the names of all children, in index order (what `ownKeys` answers). */
  let keys: string[] | undefined;
  /** Every child on the target, then the target frozen. */
  const complete = (): string[] => {
    if (keys !== undefined) return keys;
    const names = childNames(index, key, from);
    const found: string[] = [];
    let count = 0;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      if (defineChild(target, index, key, from, name, callTool))
        ObjectDefineProperty(found, count++, dataDescriptor(name, true));
    }
    ObjectFreeze(target);
    keys = found;
    return found;
  };
  /** Makes the property `name` names, if it exists. */
  const touch = (name: string | symbol): void => {
    if (keys === undefined && typeof name === 'string')
      defineChild(target, index, key, from, name, callTool);
  };
  // A null prototype: no trap can be added to the handler through a polluted Object.prototype.
  const handler = ObjectCreate(null) as ProxyHandler<object>;
  handler.get = (t, name): unknown => {
    touch(name);
    return ReflectGet(t, name) as unknown;
  };
  handler.has = (t, name) => {
    touch(name);
    return ReflectHas(t, name);
  };
  handler.getOwnPropertyDescriptor = (t, name) => {
    touch(name);
    const own = ReflectGetOwnPropertyDescriptor(t, name);
    if (own === undefined) return undefined;
    // Read back by the engine as a descriptor: a null prototype, so no polluted `get` joins it.
    const descriptor = dataDescriptor(own.value, own.enumerable === true);
    descriptor.writable = own.writable === true;
    descriptor.configurable = own.configurable === true;
    return descriptor;
  };
  // In index order whatever the program touched first (the target holds them in touch order).
  handler.ownKeys = () => complete();
  handler.isExtensible = (t) => {
    complete();
    return ReflectIsExtensible(t);
  };
  handler.preventExtensions = (t) => {
    complete();
    return ReflectPreventExtensions(t);
  };
  handler.defineProperty = (t, name, descriptor) => {
    complete();
    return ReflectDefineProperty(t, name, descriptor);
  };
  handler.deleteProperty = (t, name) => {
    touch(name);
    return ReflectDeleteProperty(t, name);
  };
  handler.set = () => false;
  handler.setPrototypeOf = (t, proto) => {
    complete();
    return ReflectSetPrototypeOf(t, proto);
  };
  return new ProxyCtor(target, handler);
}

/**
 * Builds the `tools` tree from the host's tool index. Malformed entries (empty or `__proto__`
 * names, the reserved tool) are never reached; the root is never a function.
 */
export function buildTools(index: unknown, callTool: CallTool): object {
  return namespace(typeof index === 'string' ? index : '', '', 0, callTool);
}
