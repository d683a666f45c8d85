/**
 * One-line hints for the TypeScript diagnostics models run into most, shown under the diagnostic in
 * a failed run's message (and as `hint` in its details). A hint says what to do, not what the message
 * already says; codes without a useful generic hint have none.
 */
import type { Diagnostic } from './types.js';

const NODE_HINT =
  'Node.js APIs (require, process, Buffer, fs, timers) do not exist in run_code programs: call the tools on the global `tools` object.';

/** Hints by TypeScript error code. */
const HINTS: Readonly<Record<number, string>> = {
  2304: 'Only the globals of the SDK (`tools`, `console`, standard built-ins, URL, TextEncoder, ...) exist: declare the name first, or check its spelling.',
  2339: "Use only the properties the SDK declares for this type; a tool result typed `JsonValue` must be narrowed (e.g. `typeof x === 'object'`) before reading its properties.",
  2345: "The argument does not match the parameter's type in the SDK: compare the property names and value types with the tool's input type.",
  2353: "Remove the property or use the name the tool's input type declares in the SDK (inputs accept only the listed properties).",
  2322: 'The value does not have the declared type: compare it with the type in the SDK (or drop the annotation).',
  2554: 'Pass the number of arguments the SDK declares: a tool takes one input object, e.g. `tools.x({ ... })`.',
  2769: 'No signature accepts these arguments: check the SDK for the parameter types.',
  2349: 'This value is not a function: check the SDK for what it is (and whether the program still contains Markdown or prose).',
  2532: 'The value may be undefined: check it first (`if (x)`, `x?.y`, or `x ?? fallback`).',
  2533: 'The value may be null or undefined: check it first (`if (x)`, `x?.y`, or `x ?? fallback`).',
  18047: 'The value may be null: check it first (`if (x !== null)`, `x?.y`, or `x ?? fallback`).',
  18048: 'The value may be undefined: check it first (`if (x)`, `x?.y`, or `x ?? fallback`).',
  18046:
    "The value is `unknown`: narrow it first (`typeof x === 'string'`, `'key' in x`, `Array.isArray(x)`).",
  7006: 'Annotate the parameter, e.g. `(item: string) => ...`.',
  7053: 'Index with a known key, or type the object as `Record<string, T>`.',
  1308: '`await` is allowed at the top level of the program and inside `async` functions: mark the enclosing function `async`.',
  1378: 'The program is the body of an async function: top-level `await` works; do not wrap the program in a module.',
  1375: 'The program is the body of an async function: top-level `await` works; do not wrap the program in a module.',
  2307: 'Modules are not available: use the global `tools` object instead of imports.',
  2580: NODE_HINT,
  2591: NODE_HINT,
  2584: 'Use the global `console` (log, info, warn, error, debug).',
  2583: 'The standard library is ES2022: use the built-ins it has.',
  2550: 'The standard library is ES2022: this method is not in it; write the equivalent by hand.',
  1128: 'A declaration or statement is expected here: check for an extra bracket or stray text (prose, Markdown).',
};

/** The hint for a diagnostic, or `undefined`. */
export function hintFor(d: Pick<Diagnostic, 'code' | 'message'>): string | undefined {
  return d.code === undefined ? undefined : HINTS[d.code];
}
