/**
 * Types of `oxc-parser`'s native binding (`oxc-parser/src-js/bindings`, in the package's `exports`),
 * which the package ships untyped. Only what `ast-refusals.ts` uses: its `program` is the AST as
 * JSON text (`{ "node": Program, "fixes": […] }`), read once.
 */
declare module 'oxc-parser/src-js/bindings' {
  import type { Comment, OxcError, ParserOptions } from 'oxc-parser';

  export interface RawParseResult {
    readonly program: string;
    readonly comments: Comment[];
    readonly errors: OxcError[];
  }

  export function parseSync(
    filename: string,
    sourceText: string,
    options?: ParserOptions | null,
  ): RawParseResult;
}
