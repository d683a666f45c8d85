/** Identifier, key and type-name rules for the generated SDK. */

/** ECMAScript reserved words (including strict-mode and module-only ones). Contextual keywords (`type`, `get`) are not. */
// prettier-ignore
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum',
  'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null',
  'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with',
  'implements', 'interface', 'let', 'package', 'private', 'protected', 'public', 'static', 'yield', 'await',
]);

/**
 * Global names the SDK must never declare: the prelude's own names and every capitalised global of the
 * ES libraries (a generated `interface ArrayBuffer` would silently merge with the library's).
 */
// prettier-ignore
export const RESERVED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'JsonValue', 'ToolErrorCode', 'ToolCallError', 'Console', 'Tools', 'WebAssembly',
  'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'DOMException', // sdk-templates/globals.d.ts
  'AggregateError', 'AggregateErrorConstructor', 'Array', 'ArrayBuffer', 'ArrayBufferConstructor',
  'ArrayBufferLike', 'ArrayBufferTypes', 'ArrayBufferView', 'ArrayConstructor', 'ArrayIterator', 'ArrayLike',
  'AsyncDisposable', 'AsyncDisposableStack', 'AsyncDisposableStackConstructor', 'AsyncGenerator',
  'AsyncGeneratorFunction', 'AsyncGeneratorFunctionConstructor', 'AsyncIterable', 'AsyncIterableIterator',
  'AsyncIterator', 'AsyncIteratorObject', 'Atomics', 'Awaited', 'BigInt', 'BigInt64Array',
  'BigInt64ArrayConstructor', 'BigIntConstructor', 'BigIntToLocaleStringOptions', 'BigUint64Array',
  'BigUint64ArrayConstructor', 'Boolean', 'BooleanConstructor', 'BuiltinIteratorReturn', 'CallableFunction',
  'Capitalize', 'ClassAccessorDecoratorContext', 'ClassAccessorDecoratorResult',
  'ClassAccessorDecoratorTarget', 'ClassDecorator', 'ClassDecoratorContext', 'ClassFieldDecoratorContext',
  'ClassGetterDecoratorContext', 'ClassMemberDecoratorContext', 'ClassMethodDecoratorContext',
  'ClassSetterDecoratorContext', 'ConcatArray', 'ConstructorParameters', 'DataView', 'DataViewConstructor',
  'Date', 'DateConstructor', 'DecoratorContext', 'DecoratorMetadata', 'DecoratorMetadataObject',
  'Disposable', 'DisposableStack', 'DisposableStackConstructor', 'Error', 'ErrorConstructor', 'ErrorOptions',
  'EvalError', 'EvalErrorConstructor', 'Exclude', 'Extract', 'FinalizationRegistry',
  'FinalizationRegistryConstructor', 'FlatArray', 'Float16Array', 'Float16ArrayConstructor', 'Float32Array',
  'Float32ArrayConstructor', 'Float64Array', 'Float64ArrayConstructor', 'Function', 'FunctionConstructor',
  'Generator', 'GeneratorFunction', 'GeneratorFunctionConstructor', 'IArguments', 'ImportAssertions',
  'ImportAttributes', 'ImportCallOptions', 'ImportMeta', 'Infinity', 'InstanceType', 'Int16Array',
  'Int16ArrayConstructor', 'Int32Array', 'Int32ArrayConstructor', 'Int8Array', 'Int8ArrayConstructor',
  'Intl', 'Iterable', 'IterableIterator', 'Iterator', 'IteratorObject', 'IteratorObjectConstructor',
  'IteratorResult', 'IteratorReturnResult', 'IteratorYieldResult', 'JSON', 'Lowercase', 'Map',
  'MapConstructor', 'MapIterator', 'Math', 'MethodDecorator', 'NaN', 'NewableFunction', 'NoInfer',
  'NonNullable', 'Number', 'NumberConstructor', 'Object', 'ObjectConstructor', 'Omit', 'OmitThisParameter',
  'ParameterDecorator', 'Parameters', 'Partial', 'Pick', 'Promise', 'PromiseConstructor',
  'PromiseConstructorLike', 'PromiseFulfilledResult', 'PromiseLike', 'PromiseRejectedResult',
  'PromiseSettledResult', 'PromiseWithResolvers', 'PropertyDecorator', 'PropertyDescriptor',
  'PropertyDescriptorMap', 'PropertyKey', 'Proxy', 'ProxyConstructor', 'ProxyHandler', 'RangeError',
  'RangeErrorConstructor', 'Readonly', 'ReadonlyArray', 'ReadonlyMap', 'ReadonlySet', 'ReadonlySetLike',
  'Record', 'ReferenceError', 'ReferenceErrorConstructor', 'Reflect', 'RegExp', 'RegExpConstructor',
  'RegExpExecArray', 'RegExpIndicesArray', 'RegExpMatchArray', 'RegExpStringIterator', 'Required',
  'ReturnType', 'Set', 'SetConstructor', 'SetIterator', 'SharedArrayBuffer', 'SharedArrayBufferConstructor',
  'String', 'StringConstructor', 'StringIterator', 'SuppressedError', 'SuppressedErrorConstructor', 'Symbol',
  'SymbolConstructor', 'SyntaxError', 'SyntaxErrorConstructor', 'TemplateStringsArray', 'ThisParameterType',
  'ThisType', 'TypeError', 'TypeErrorConstructor', 'TypedPropertyDescriptor', 'URIError',
  'URIErrorConstructor', 'Uint16Array', 'Uint16ArrayConstructor', 'Uint32Array', 'Uint32ArrayConstructor',
  'Uint8Array', 'Uint8ArrayConstructor', 'Uint8ClampedArray', 'Uint8ClampedArrayConstructor', 'Uncapitalize',
  'Uppercase', 'WeakKey', 'WeakKeyTypes', 'WeakMap', 'WeakMapConstructor', 'WeakRef', 'WeakRefConstructor',
  'WeakSet', 'WeakSetConstructor',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `name` can be written unquoted as a property name or member access (`tools.name`). */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED_WORDS.has(name);
}

/** A property key as written in a type: bare when a plain identifier, otherwise a string literal. */
export function propertyKey(name: string): string {
  return isPlainIdentifier(name) ? name : JSON.stringify(name);
}

/** A member access as a program writes it: `.name` or `["get-user"]`. */
export function memberAccess(name: string): string {
  return isPlainIdentifier(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

/**
 * PascalCase of the ASCII letter/digit runs of `name` (`get-user` → `GetUser`, `read_file` → `ReadFile`,
 * `getUser` → `GetUser`). Empty when `name` has no letters or digits.
 */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Hands out unique type names: the first claim of a name wins, later ones get `2`, `3`, … suffixes. */
export class NameAllocator {
  private readonly used = new Set<string>(RESERVED_TYPE_NAMES);

  /** True when `name` is not claimed (nor reserved). */
  isFree(name: string): boolean {
    return !this.used.has(name);
  }

  /** Claims `base` + each suffix in `suffixes` together, adding a number to `base` until all are free. */
  claim(base: string, suffixes: readonly string[] = ['']): string {
    const stem = /^[A-Za-z_$]/.test(base) ? base : `T${base}`;
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? stem : `${stem}${n}`;
      if (suffixes.every((s) => !this.used.has(candidate + s))) {
        for (const s of suffixes) this.used.add(candidate + s);
        return candidate;
      }
    }
  }
}
