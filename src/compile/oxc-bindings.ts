/**
 * `oxc-parser`'s native binding (`oxc-parser/src-js/bindings`, in the package's `exports`), typed: the
 * package ships it without types. Its `program` is the AST as JSON text (`{ "node": Program, "fixes":
 * […] }`) that `oxc-parser`'s own `parseSync` always parses; `ast-refusals.ts` parses it only when it
 * must (decision 034 §7).
 */
import type { Comment, OxcError, ParserOptions } from 'oxc-parser';
// @ts-expect-error -- the binding has no declaration file; its type is stated below.
import { parseSync as untyped } from 'oxc-parser/src-js/bindings';

/** What the binding's `parseSync` returns, as far as isocode reads it (each field once). */
export interface RawParseResult {
  readonly program: string;
  readonly comments: Comment[];
  readonly errors: OxcError[];
}

/** Parses `sourceText`; the AST stays JSON text until {@link RawParseResult.program} is read. */
export const parseSyncRaw = untyped as (
  filename: string,
  sourceText: string,
  options?: ParserOptions | null,
) => RawParseResult;
