/**
 * The tool registry: registered tools, scopes, per-scope visibility and presentation, and the
 * execution-path resolution that enforces the code-mode collapse.
 */
import { IsocodeError } from '../errors.js';
import { sdkBindings } from '../sdk/bindings.js';
import { RUN_CODE } from './names.js';
import { resolveTool, toToolSchema, type ResolvedTool } from './resolve-tool.js';
import { compileScope, DEFAULT_SCOPE, type CompiledScope, type ScopeConfig } from './scopes.js';
import type { PresentationMode, ToolSchema, TransportContext } from './types.js';

/** How a name resolves for execution in a scope: what kind of thing was named, and what it is. */
export type Resolution =
  | { kind: 'tool'; tool: ResolvedTool }
  /** The code-mode transport (run_code): its body receives a parent token for nested calls. */
  | { kind: 'transport'; tool: ResolvedTool<TransportContext> }
  /**
   * A visible native tool named model-direct under `code`: denied as UNKNOWN_TOOL. `route` is its
   * binding path in the scope's SDK (`["fs", "read-file"]`), for the message that names it.
   */
  | { kind: 'collapsed'; tool: ResolvedTool; route: readonly string[] }
  /** `run_code` named from inside a run_code program. */
  | { kind: 'recursion' }
  | { kind: 'unknown' };

/** The registry behind a runtime. */
export class ToolRegistry {
  readonly #tools = new Map<string, ResolvedTool>();
  readonly #scopes = new Map<string, CompiledScope>();
  readonly #visible = new Map<string, Map<string, ResolvedTool>>();
  /** Per scope: tool name → the scope whose `ask` matches it (null: none). */
  readonly #asking = new Map<string, Map<string, string | null>>();
  readonly #routes = new Map<string, ReadonlyMap<string, readonly string[]>>();
  #transport: ResolvedTool<TransportContext> | undefined;
  #version = 0;

  /** Increases whenever tools or scopes change (for caches of derived data such as SDKs). */
  get version(): number {
    return this.#version;
  }

  constructor() {
    this.#scopes.set(DEFAULT_SCOPE, compileScope(DEFAULT_SCOPE, {}));
  }

  /**
   * Registers tools.
   * @throws IsocodeError INVALID_TOOL_DEFINITION for a bad definition, a bad or reserved name, or a duplicate.
   */
  register(definitions: Iterable<unknown>): void {
    const resolved: ResolvedTool[] = [];
    const names = new Set<string>();
    for (const def of definitions) {
      const tool = resolveTool(def);
      if (this.#tools.has(tool.name) || names.has(tool.name)) {
        throw new IsocodeError('INVALID_TOOL_DEFINITION', `duplicate tool name "${tool.name}"`);
      }
      names.add(tool.name);
      resolved.push(tool);
    }
    for (const tool of resolved) this.#tools.set(tool.name, tool);
    this.#changed();
  }

  /**
   * Removes and adds tools in one step (a source's catalog changed). Every addition is validated
   * before anything changes; on error the registry is left as it was.
   * @throws IsocodeError INVALID_TOOL_DEFINITION for a bad definition or a name still taken.
   */
  update(remove: Iterable<string>, add: Iterable<unknown>): void {
    const removed = new Set(remove);
    const resolved: ResolvedTool[] = [];
    for (const def of add) {
      const tool = resolveTool(def);
      const taken =
        (this.#tools.has(tool.name) && !removed.has(tool.name)) ||
        resolved.some((t) => t.name === tool.name);
      if (taken)
        throw new IsocodeError('INVALID_TOOL_DEFINITION', `duplicate tool name "${tool.name}"`);
      resolved.push(tool);
    }
    for (const name of removed) this.#tools.delete(name);
    for (const tool of resolved) this.#tools.set(tool.name, tool);
    this.#changed();
  }

  /** Derived per-scope data (visibility, routes) is stale: drop it and bump the version. */
  #changed(): void {
    this.#visible.clear();
    this.#asking.clear();
    this.#routes.clear();
    this.#version++;
  }

  /** Installs the code-mode transport under the reserved name (done by the runtime itself). */
  setTransport(tool: ResolvedTool<TransportContext>): void {
    if (tool.name !== RUN_CODE)
      throw new IsocodeError('INTERNAL_ERROR', `the transport must be named ${RUN_CODE}`);
    this.#transport = tool;
  }

  /**
   * Declares or replaces a scope.
   * @throws IsocodeError INVALID_SCOPE for a bad declaration, an unknown parent or a cycle.
   */
  defineScope(id: string, config: ScopeConfig): void {
    const scope = compileScope(id, config);
    for (let p = scope.parent, hops = 0; p !== undefined; hops++) {
      if (p === id || hops > 64)
        throw new IsocodeError('INVALID_SCOPE', `scope "${id}": parent chain forms a cycle`);
      const parent = this.#scopes.get(p);
      if (!parent)
        throw new IsocodeError('INVALID_SCOPE', `scope "${id}": unknown parent scope "${p}"`);
      p = parent.parent;
    }
    this.#scopes.set(id, scope);
    this.#changed();
  }

  /**
   * Declares several scopes at once, in dependency order: "default" first, then each scope after its
   * parent, whatever the order of `scopes` (an object lists children before parents as readily).
   * @throws IsocodeError INVALID_SCOPE as {@link defineScope} does (an unknown parent, a cycle).
   */
  defineScopes(scopes: Record<string, ScopeConfig>): void {
    const pending = new Map(Object.entries(scopes));
    const root = pending.get(DEFAULT_SCOPE);
    if (root) this.defineScope(DEFAULT_SCOPE, root);
    pending.delete(DEFAULT_SCOPE);
    while (pending.size > 0) {
      // A scope is ready when its parent is declared or is not among the pending ones (then
      // defineScope reports the unknown parent); with none ready (a cycle), the first one reports it.
      const ready = [...pending].find(
        ([, c]) => c.parent === undefined || this.hasScope(c.parent) || !pending.has(c.parent),
      );
      const [id, config] = ready ?? [...pending][0]!;
      this.defineScope(id, config);
      pending.delete(id);
    }
  }

  /** True when the scope is declared. */
  hasScope(id: string): boolean {
    return this.#scopes.has(id);
  }

  /** The declared scope ids. */
  scopeIds(): string[] {
    return [...this.#scopes.keys()].sort();
  }

  #chain(scope: string): CompiledScope[] {
    const chain: CompiledScope[] = [];
    for (
      let s = this.#scopes.get(scope);
      s;
      s = s.parent === undefined ? undefined : this.#scopes.get(s.parent)
    )
      chain.push(s);
    if (chain.length === 0) throw new IsocodeError('INVALID_SCOPE', `unknown scope "${scope}"`);
    return chain;
  }

  /**
   * The presentation mode of a scope: the nearest declaration up the chain.
   * @throws IsocodeError INVALID_SCOPE for an unknown scope.
   */
  mode(scope: string): PresentationMode {
    for (const s of this.#chain(scope)) if (s.mode !== undefined) return s.mode;
    return 'native';
  }

  /** The native tools a scope can see (never `run_code`). */
  visible(scope: string): ReadonlyMap<string, ResolvedTool> {
    const cached = this.#visible.get(scope);
    if (cached) return cached;
    const chain = this.#chain(scope);
    const out = new Map<string, ResolvedTool>();
    for (const [name, tool] of this.#tools) {
      if (chain.every((s) => (s.allow === undefined || s.allow(name)) && !s.deny(name)))
        out.set(name, tool);
    }
    this.#visible.set(scope, out);
    return out;
  }

  /**
   * The scope up the chain (nearest first) whose `ask` patterns name this tool: calls of it in
   * `scope` wait for a human. Undefined when none does (or the scope is unknown).
   */
  askingScope(scope: string, name: string): string | undefined {
    if (name === RUN_CODE) return undefined; // run_code is never asked about; each nested call is
    let byName = this.#asking.get(scope);
    if (!byName) {
      if (!this.#scopes.has(scope)) return undefined;
      byName = new Map();
      this.#asking.set(scope, byName);
    }
    let found = byName.get(name);
    if (found === undefined) {
      found = this.#chain(scope).find((s) => s.ask(name))?.id ?? null;
      byName.set(name, found);
    }
    return found ?? undefined;
  }

  /** The full visible catalog of a scope, sorted by name. Never collapsed by mode. */
  schemas(scope: string): ToolSchema[] {
    return [...this.visible(scope).values()]
      .map(toToolSchema)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** What the scope's model is shown: every visible tool (`native`), only `run_code` (`code`), or both. */
  wireSchemas(scope: string): ToolSchema[] {
    const mode = this.mode(scope);
    const transport = this.#transport && mode !== 'native' ? [toToolSchema(this.#transport)] : [];
    if (mode === 'code') return transport;
    return [...transport, ...this.schemas(scope)];
  }

  /**
   * Resolves a name for execution. Model-direct calls (`nested` false) under `code` may only name
   * `run_code`; nested calls (a valid parent token) may name any visible native tool, never `run_code`.
   */
  resolveExecution(name: string, scope: string, nested: boolean): Resolution {
    const mode = this.mode(scope);
    if (name === RUN_CODE) {
      if (nested) return { kind: 'recursion' };
      return this.#transport && mode !== 'native'
        ? { kind: 'transport', tool: this.#transport }
        : { kind: 'unknown' };
    }
    const tool = this.visible(scope).get(name); // a Map: no prototype names can resolve
    if (!tool) return { kind: 'unknown' };
    if (!nested && mode === 'code')
      return { kind: 'collapsed', tool, route: this.#route(scope, name) };
    return { kind: 'tool', tool };
  }

  /** The binding path of a visible tool, from the same `sdkBindings` over the same names as the scope's SDK. */
  #route(scope: string, name: string): readonly string[] {
    let routes = this.#routes.get(scope);
    if (!routes) {
      const bindings = sdkBindings([...this.visible(scope).keys()]);
      routes = new Map(bindings.map((b) => [b.tool, b.path]));
      this.#routes.set(scope, routes);
    }
    return routes.get(name) ?? [name];
  }
}
