/**
 * The transpiler behind the program refusals. oxc parses recursively on the native stack: tens of
 * thousands of nested brackets overflow it and end the process (SIGSEGV), which no exception handler
 * can catch. Programs are transpiled only in sandbox worker processes, so such a crash costs a
 * worker, not the host; the refusal scan (`programRefusal`: bracket nesting, modules and files, the
 * same rule the checker applies) turns the common cases into one diagnostic before oxc sees them.
 */
import { astRefusal } from './ast-refusals.js';
import { programRefusal } from './refusals.js';
import { transpileProgram } from './transpile.js';
import type { TranspileResult } from './types.js';

/**
 * {@link transpileProgram}, after refusing what `programRefusal` refuses, and then what a real
 * parse finds (`astRefusal`: module and file references and nesting the lexical scan could be walked
 * past). A program this accepts is one the checker may see.
 */
export function transpileGuarded(code: string): TranspileResult {
  const refusal = programRefusal(code);
  if (refusal !== undefined) return { ok: false, diagnostics: [refusal] };
  const result = transpileProgram(code);
  if (!result.ok) return result;
  const parsed = astRefusal(code);
  return parsed === undefined ? result : { ok: false, diagnostics: [parsed] };
}
