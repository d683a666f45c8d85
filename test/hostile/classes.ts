/**
 * The hostile classes of issue 10 item 5 as tables of programs. The load test's hostile mix
 * (benchmarks/load/programs.ts) is the first program of most classes; the variants here probe the
 * class, not the example.
 */
import { HOSTILE_PROGRAMS, type HostileProgram } from '../../benchmarks/load/programs.js';

const fromLoad = (cls: string): HostileProgram[] => HOSTILE_PROGRAMS.filter((p) => p.class === cls);

const program = (
  cls: string,
  kinds: readonly string[],
  name: string,
  code: string,
): HostileProgram => ({
  class: cls,
  kinds,
  name,
  code,
});

const PARSE_KINDS = ['ok', 'syntax', 'typecheck', 'exception'];
const MEMORY_KINDS = ['memory', 'timeout', 'exception'];

/** Sources whose nesting overflows a recursive-descent parser's native stack (≈ 40 KB each). */
export const STACK_OVERFLOWING_SOURCES: readonly HostileProgram[] = [
  ...fromLoad('stack-overflowing-source'),
  program(
    'stack-overflowing-source',
    PARSE_KINDS,
    'paren-nest',
    `return ${'('.repeat(20_000)}1${')'.repeat(20_000)};`,
  ),
  program(
    'stack-overflowing-source',
    PARSE_KINDS,
    'object-nest',
    `return ${'{a:'.repeat(12_000)}1${'}'.repeat(12_000)};`,
  ),
  program(
    'stack-overflowing-source',
    PARSE_KINDS,
    'arrow-nest',
    `return ${'() => '.repeat(8_000)}1;`,
  ),
  program(
    'stack-overflowing-source',
    PARSE_KINDS,
    'type-nest',
    `type T = ${'Array<'.repeat(6_000)}1${'>'.repeat(6_000)};\nreturn 1;`,
  ),
];

/** One allocation too large for the heap: V8's last-resort OOM path. */
export const LAST_RESORT_OOM: readonly HostileProgram[] = [
  ...fromLoad('last-resort-oom'),
  program(
    'last-resort-oom',
    MEMORY_KINDS,
    'array-from-3e7',
    'return Array.from({ length: 3e7 }, () => 0).length;',
  ),
  program(
    'last-resort-oom',
    MEMORY_KINDS,
    'string-split-2e28',
    "return 'ab'.repeat(2 ** 27).split('').length;",
  ),
  program(
    'last-resort-oom',
    MEMORY_KINDS,
    'double-array-1e8',
    'return new Array(1e8).fill(1.5).length;',
  ),
];

/** Native memory the heap limit does not see. */
export const NATIVE_MEMORY: readonly HostileProgram[] = [
  ...fromLoad('native-memory'),
  program(
    'native-memory',
    MEMORY_KINDS,
    'intl-collators',
    `const keep: Intl.Collator[] = [];
for (let i = 0; i < 300_000; i++) keep.push(new Intl.Collator(['de', 'fr', 'ja', 'ar'][i % 4], { sensitivity: 'base' }));
return keep.length;`,
  ),
];

/** Buffers allocated outside the isolate's limited allocator. */
export const RESIZABLE_BUFFERS: readonly HostileProgram[] = [
  ...fromLoad('resizable-buffer'),
  program(
    'resizable-buffer',
    MEMORY_KINDS,
    'one-buffer-4gib-max',
    `const AB = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer & { resize(n: number): void };
const b = new AB(1, { maxByteLength: 2 ** 32 });
b.resize(3 * 2 ** 29);\nnew Uint8Array(b).fill(1);
return b.byteLength;`,
  ),
];

/** Builtins implemented in C++ that do not check for termination, before and after `return`. */
export const UNINTERRUPTIBLE_BUILTINS: readonly HostileProgram[] = [
  ...(['indexOf', 'lastIndexOf'] as const).map((method) =>
    program(
      'uninterruptible-builtin',
      ['timeout'],
      `holey-${method}-before-return`,
      `const a: number[] = new Array(1e9);\na[0] = 1;\nreturn a.${method}(2);`,
    ),
  ),
  program(
    'uninterruptible-builtin',
    ['ok', 'timeout'],
    'holey-indexOf-after-return',
    `void Promise.resolve().then(() => {
  const a: number[] = new Array(1e9);
  a[0] = 1;
  return a.indexOf(2);
});
return 'returned';`,
  ),
];

/** A type-level bomb: the checker's time and memory. */
export const CHECKER_BOMBS: readonly HostileProgram[] = [
  program(
    'checker-bomb',
    ['typecheck', 'timeout'],
    'mapped-cross-product',
    `type D = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type X = \`\${D}\${D}\${D}\`;
type P = { [K in X]: { [J in X]: [K, J] }[X] }[X];
const v = ['0', '1'] as unknown as P;
return v;`,
  ),
];

/** Probes for another scope's files in the checker's virtual file system. */
export const CHECKER_PROBES: readonly string[] = [0, 1, 2, 3].flatMap((n) => [
  `type T = typeof import('/isocode/p${n}/sdk.d.ts');\nconst t: T = 1 as never;\nreturn 1;`,
  `/// <reference path="/isocode/p${n}/sdk.d.ts" />\nconst x: number = 'probe';\nreturn x;`,
  `import type * as M from '/isocode/p${n}/sdk.js';\nconst m: M.Nope = 1;\nreturn m;`,
]);
