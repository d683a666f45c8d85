/**
 * Hardens the context's global before any program runs (decisions in
 * docs/decisions/004-isolate-strategy.md):
 * - `WebAssembly`, `SharedArrayBuffer`, `Atomics` and V8's own `console` are removed;
 * - `eval` and the `Function`/`AsyncFunction`/`GeneratorFunction`/`AsyncGeneratorFunction`
 *   constructors are replaced by functions that throw `EvalError`: a program is type-checked
 *   TypeScript and code built from strings would bypass that (it gains no extra reach: it would run
 *   in the same context). `instanceof Function` keeps working;
 * - `Error.prepareStackTrace` is pinned to `undefined` (non-writable) so a program cannot receive
 *   V8 CallSite objects or change how the host reads stacks;
 * - `Promise.prototype.then`, `Promise.prototype.constructor` and `Promise[Symbol.species]` are
 *   made read-only: isolated-vm resolves each bridge reply with a promise, which V8 adopts through
 *   a property lookup of `then` — a replaced `then` would intercept every tool result;
 * - `FinalizationRegistry` is replaced by a constructor that wraps each cleanup callback so that it
 *   does nothing once the run is over: the collector runs those callbacks as tasks of the isolate,
 *   which may by then serve the next run (in another context), and guest code of a finished run
 *   must never run on that run's time. The original constructor is not reachable (the global and
 *   `FinalizationRegistry.prototype.constructor` both lead to the wrapper); instances, `register`,
 *   `unregister`, subclassing and `instanceof` work as before.
 * - `ArrayBuffer.prototype.resize`, `transfer` and `transferToFixedLength` are removed where the
 *   engine has them: resizable buffers reserve and commit memory outside the allocator that
 *   enforces the isolate's memory limit. (Sandbox worker processes also start V8 with
 *   `--no-harmony-rab-gsab`; this is the same rule for an isolate in any process.)
 * A bare isolated-vm context has no timers, `fetch`, `process`, `require` or module loader
 * (dynamic `import()` rejects with "Not supported"); nothing here adds any.
 */
import {
  EvalErrorCtor,
  ObjectDefineProperty,
  ObjectGetPrototypeOf,
  ReflectApply,
  ReflectConstruct,
  TypeErrorCtor,
} from './primordials.js';

/** Methods deleted from `ArrayBuffer.prototype` when present: they grow memory outside the limit. */
export const REMOVED_BUFFER_METHODS = ['resize', 'transfer', 'transferToFixedLength'] as const;

/** Globals deleted from the context. */
export const REMOVED_GLOBALS = ['WebAssembly', 'SharedArrayBuffer', 'Atomics', 'console'] as const;

const CODE_GENERATION_DISABLED = 'code generation from strings is disabled in isocode programs';

function blockedConstructor(name: string, prototype: object): () => never {
  const blocked = function (): never {
    throw new EvalErrorCtor(CODE_GENERATION_DISABLED);
  };
  ObjectDefineProperty(blocked, 'name', { value: name });
  ObjectDefineProperty(blocked, 'prototype', { value: prototype, writable: false });
  ObjectDefineProperty(prototype, 'constructor', {
    value: blocked,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  return blocked;
}

/** Replaces `FinalizationRegistry` by one whose cleanup callbacks stop once `isRunOver()`. */
function guardFinalizationRegistry(
  global: Record<string, unknown>,
  isRunOver: () => boolean,
): void {
  const original = global.FinalizationRegistry as (new (cleanup: unknown) => object) & {
    prototype: object;
  };
  const prototype = original.prototype;
  const guarded = function FinalizationRegistry(cleanup: unknown): object {
    if (new.target === undefined) {
      throw new TypeErrorCtor("Constructor FinalizationRegistry requires 'new'");
    }
    // A non-function is passed through so that the original throws its own TypeError.
    const callback =
      typeof cleanup === 'function'
        ? (held: unknown): void => {
            if (!isRunOver()) ReflectApply(cleanup as (held: unknown) => void, undefined, [held]);
          }
        : cleanup;
    return ReflectConstruct(original as never, [callback], new.target as never);
  };
  ObjectDefineProperty(guarded, 'prototype', {
    value: prototype,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  ObjectDefineProperty(prototype, 'constructor', {
    value: guarded,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  ObjectDefineProperty(global, 'FinalizationRegistry', {
    value: guarded,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

/**
 * Deletes {@link REMOVED_GLOBALS} and {@link REMOVED_BUFFER_METHODS}: the part of the hardening that
 * runs in each context itself, never in a startup snapshot. V8 installs `WebAssembly` and
 * `SharedArrayBuffer` again on a context it deserializes, and V8 13 cannot deserialize a context
 * whose `Atomics` was deleted (a fatal error that ends the process), so a snapshot keeps them and
 * each context made from it removes them when it is claimed (docs/decisions/039-isolate-snapshot.md).
 * Everything {@link lockdown} does is object state a snapshot keeps. Throws if a removal does not
 * take effect.
 */
export function removeGlobals(): void {
  const global = globalThis as unknown as Record<string, unknown>;
  for (const name of REMOVED_GLOBALS) {
    if (!delete global[name]) throw new Error('lockdown: cannot remove ' + name);
  }
  const bufferPrototype = ArrayBuffer.prototype as unknown as Record<string, unknown>;
  for (const name of REMOVED_BUFFER_METHODS) {
    if (!delete bufferPrototype[name]) throw new Error('lockdown: cannot remove ' + name);
  }
}

/**
 * Applies the hardening to `globalThis`, but for {@link removeGlobals} (which every context runs
 * after it); throws if any step did not take effect.
 * @param isRunOver true once the context's run has settled (FinalizationRegistry callbacks stop)
 */
export function lockdown(isRunOver: () => boolean): void {
  const global = globalThis as unknown as Record<string, unknown>;
  guardFinalizationRegistry(global, isRunOver);

  const prototypes: [string, object][] = [
    ['Function', Function.prototype],
    ['AsyncFunction', ObjectGetPrototypeOf(async function () {}) as object],
    ['GeneratorFunction', ObjectGetPrototypeOf(function* () {}) as object],
    ['AsyncGeneratorFunction', ObjectGetPrototypeOf(async function* () {}) as object],
  ];
  for (const [name, prototype] of prototypes) {
    const blocked = blockedConstructor(name, prototype);
    if (name === 'Function') {
      ObjectDefineProperty(global, 'Function', {
        value: blocked,
        writable: true,
        enumerable: false,
        configurable: true,
      });
    }
  }
  const blockedEval = function eval_(): never {
    throw new EvalErrorCtor(CODE_GENERATION_DISABLED);
  };
  ObjectDefineProperty(blockedEval, 'name', { value: 'eval' });
  ObjectDefineProperty(global, 'eval', {
    value: blockedEval,
    writable: true,
    enumerable: false,
    configurable: true,
  });

  ObjectDefineProperty(Error, 'prepareStackTrace', {
    value: undefined,
    writable: false,
    enumerable: false,
    configurable: false,
  });

  void ObjectDefineProperty(Promise.prototype, 'then', { writable: false, configurable: false });
  void ObjectDefineProperty(Promise.prototype, 'constructor', {
    writable: false,
    configurable: false,
  });
  ObjectDefineProperty(Promise, Symbol.species, { configurable: false });
}
