/** The SDK of each scope, rendered from its visible catalog and cached until tools or scopes change. */
import { renderSdk, renderSdkPrompt, type RenderedSdk } from '../sdk/index.js';
import type { ToolRegistry } from '../tools/registry.js';

/** A per-scope SDK cache over a registry. */
export class ScopeSdkCache {
  readonly #registry: ToolRegistry;
  readonly #cache = new Map<string, { version: number; sdk: RenderedSdk; prompt?: string }>();

  constructor(registry: ToolRegistry) {
    this.#registry = registry;
  }

  #entry(scope: string): { version: number; sdk: RenderedSdk; prompt?: string } {
    const version = this.#registry.version;
    const hit = this.#cache.get(scope);
    if (hit && hit.version === version) return hit;
    const entry = { version, sdk: renderSdk(this.#registry.schemas(scope)) };
    this.#cache.set(scope, entry);
    return entry;
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
