/**
 * The transpiler: strips TypeScript from a run_code program with oxc-transform and wraps it as an async
 * function expression. Positions in the output map back to the program through oxc's source map.
 */

import { transformSync } from 'oxc-transform';
import type { OxcError } from 'oxc-transform';
import { IsocodeError, thrownText } from '../errors.js';
import { LineMap, utf8ToUtf16Offset } from './positions.js';
import { positionMapper } from './position-map.js';
import { bodyDiagnostic } from './refusals.js';
import type { Diagnostic, PositionMap, TranspileResult } from './types.js';

/** What the program is wrapped in before transforming: top-level `await` and `return` are legal inside. */
export const SOURCE_PREFIX = "(async function () {\n'use strict';\n";
export const SOURCE_SUFFIX = '\n})';
/** Lines of {@link SOURCE_PREFIX}: program line 1 is source-map line 2 (0-based). */
const PREFIX_LINES = 2;
/** oxc prints the wrapper back as `(async function() {\n<body>\n});\n`. */
const OUTPUT_HEAD = /^\(async function\s*\(\)\s*\{\n/;
const OUTPUT_TAIL = /\n\}\);?\n*$/;

type AsyncFunctionConstructor = new (body: string) => unknown;
const AsyncFunction = (
  Object.getPrototypeOf(async function () {}) as { constructor: AsyncFunctionConstructor }
).constructor;

/**
 * Transpiles a run_code program (the body of an async function, TypeScript) to a JS expression
 * `(async function() {\n'use strict'; ...\n})` that evaluates to an async function of no arguments.
 * Syntax errors come back as `kind: 'syntax'` diagnostics in the program's own coordinates.
 */
export function transpileProgram(program: string): TranspileResult {
  if (typeof program !== 'string')
    throw new IsocodeError('INVALID_ARGS', 'program must be a string');
  const source = SOURCE_PREFIX + program + SOURCE_SUFFIX;
  let result;
  try {
    result = transformSync('program.ts', source, {
      lang: 'ts',
      sourceType: 'script',
      sourcemap: true,
    });
  } catch (cause) {
    throw new IsocodeError('INTERNAL_ERROR', 'the transpiler failed', { cause });
  }
  const errors = result.errors.filter((e) => (e.severity as string) === 'Error');
  if (errors.length > 0) {
    const lines = new LineMap(program);
    return { ok: false, diagnostics: errors.map((e) => toDiagnostic(e, source, program, lines)) };
  }

  const head = OUTPUT_HEAD.exec(result.code);
  const tail = OUTPUT_TAIL.exec(result.code);
  const body =
    head && tail && tail.index >= head[0].length
      ? result.code.slice(head[0].length, tail.index)
      : undefined;
  const rejection = body === undefined ? "Unexpected token '}'" : functionBodyError(body);
  if (body === undefined || rejection !== undefined) {
    return { ok: false, diagnostics: [bodyDiagnostic(rejection ?? '')] };
  }
  // Same first line and body as oxc's output, so the source map's generated positions stay valid.
  const js = `${head?.[0] ?? ''}${body}\n})`;
  const positions: PositionMap = {
    mappings: result.map?.mappings ?? '',
    prefixLines: PREFIX_LINES,
    programLines: new LineMap(program).lineCount,
  };
  return { ok: true, js, mapPosition: positionMapper(positions), positions };
}

/**
 * `undefined` when V8 accepts `body` as the body of an async function on its own (the program cannot
 * close the wrapper early and run code outside it: `}), evil(), (function () {`), else V8's message.
 * Only parses, never runs.
 */
function functionBodyError(body: string): string | undefined {
  try {
    new AsyncFunction(body);
    return undefined;
  } catch (error) {
    // Code generation from strings disabled for this Node process: the check is unavailable, not failed.
    if (error instanceof EvalError) return undefined;
    return thrownText(error);
  }
}

function toDiagnostic(
  error: OxcError,
  source: string,
  program: string,
  lines: LineMap,
): Diagnostic {
  const toProgram = (byteOffset: number): number =>
    utf8ToUtf16Offset(source, byteOffset) - SOURCE_PREFIX.length;
  const inProgram = (offset: number): boolean => offset >= 0 && offset < program.length;
  const [primary, ...others] = error.labels;
  const parts = [error.message];
  if (primary?.message) parts.push(`  ${primary.message}`);
  for (const label of others) {
    const offset = toProgram(label.start);
    // Secondary labels inside isocode's wrapper (the wrapper's opening bracket) mean nothing to the model.
    if (!label.message || !inProgram(offset)) continue;
    const at = lines.position(offset);
    parts.push(`  line ${at.line}, col ${at.column}: ${label.message}`);
  }
  if (error.helpMessage) parts.push(`  help: ${error.helpMessage}`);
  if (primary === undefined) {
    return {
      kind: 'syntax',
      category: 'error',
      message: parts.join('\n'),
      line: 1,
      column: 1,
    };
  }
  const start = toProgram(primary.start);
  const end = Math.max(start, toProgram(primary.end));
  if (start >= program.length && program.trim().length > 0) {
    parts.push(
      '  (at the end of the program: check for an unclosed or extra bracket, brace or string)',
    );
  }
  const from = lines.position(start);
  const to = lines.position(end);
  return {
    kind: 'syntax',
    category: 'error',
    message: parts.join('\n'),
    line: from.line,
    column: from.column,
    endLine: to.line,
    endColumn: to.column,
  };
}
