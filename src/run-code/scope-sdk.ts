/** The SDK of each scope, rendered from its visible catalog and cached until tools or scopes change. */
import { renderSdk, renderSdkPrompt, type RenderedSdk } from '../sdk/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolSchema } from '../tools/types.js';

/** Something that adds to the catalog the SDK is rendered from (output inference), with its own version. */
export interface CatalogView {
  readonly version: number;
  augment(catalog: readonly ToolSchema[]): ToolSchema[];
}

/** A per-scope SDK cache over a registry. */
export class ScopeSdkCache {
  readonly #registry: ToolRegistry;
  readonly #view: CatalogView | undefined;
  readonly #cache = new Map<string, { version: string; sdk: RenderedSdk; prompt?: string }>();

  constructor(registry: ToolRegistry, view?: CatalogView) {
    this.#registry = registry;
    this.#view = view;
  }

  #entry(scope: string): { version: string; sdk: RenderedSdk; prompt?: string } {
    const version = `${this.#registry.version}:${this.#view?.version ?? 0}`;
    const hit = this.#cache.get(scope);
    if (hit && hit.version === version) return hit;
    const entry = { version, sdk: renderSdk(this.catalog(scope)) };
    this.#cache.set(scope, entry);
    return entry;
  }

  /** The catalog the scope's SDK is rendered from (the registry's, with inferred outputs). */
  catalog(scope: string): ToolSchema[] {
    const schemas = this.#registry.schemas(scope);
    return this.#view ? this.#view.augment(schemas) : schemas;
  }

  /** The scope's SDK (text, hash, bindings, warnings). */
  sdk(scope: string): RenderedSdk {
    return this.#entry(scope).sdk;
  }

  /** The instructions plus the SDK, as the run_code description and the `tools:sdk` prompt section carry them. */
  prompt(scope: string): string {
    const entry = this.#entry(scope);
    entry.prompt ??= renderSdkPrompt(entry.sdk);
    return entry.prompt;
  }
}
