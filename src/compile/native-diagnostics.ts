/**
 * The program wrapper used for type-checking and the conversion of native compiler diagnostics (UTF-16
 * offsets into the wrapped file, message chains) into {@link Diagnostic}s in the program's coordinates.
 */

import type { Diagnostic as NativeDiagnostic } from 'typescript-native/unstable/async';
import { LineMap } from './positions.js';
import type { Diagnostic } from './types.js';

/**
 * The checked file is a module (`export {}` and `moduleDetection: "force"`): the program's names stay
 * local and cannot merge with the SDK's globals. No return type annotation: any value (or none) may be
 * returned, and top-level `await` is legal inside the async function.
 */
const CHECK_PREFIX = 'export {};\nasync function __isocode_main__() {\n';
const CHECK_SUFFIX = '\n}\n';

/** The text of the file the compiler checks for `program`. */
export function wrapForCheck(program: string): string {
  return CHECK_PREFIX + program + CHECK_SUFFIX;
}

const CATEGORY = ['warning', 'error', 'suggestion', 'message'] as const;

function category(value: number): Diagnostic['category'] {
  return CATEGORY[value] ?? 'error';
}

/** `text`, then each chained message on its own line, indented two spaces per level (like tsc). */
export function flattenMessage(diag: Pick<NativeDiagnostic, 'text' | 'messageChain'>): string {
  const lines = [diag.text];
  const walk = (chain: readonly NativeDiagnostic[] | undefined, depth: number): void => {
    for (const next of chain ?? []) {
      lines.push(`${'  '.repeat(depth)}${next.text}`);
      walk(next.messageChain, depth + 1);
    }
  };
  walk(diag.messageChain, 1);
  return lines.join('\n');
}

/** Converts native diagnostics of one check into program-coordinate {@link Diagnostic}s. */
export class DiagnosticMapper {
  private readonly lines: LineMap;

  constructor(
    private readonly program: string,
    private readonly mainFile: string,
  ) {
    this.lines = new LineMap(program);
  }

  /** A diagnostic of the checked file, located in the program (wrapper positions clamp to its ends). */
  map(diag: NativeDiagnostic, kind: Diagnostic['kind']): Diagnostic {
    const start = this.lines.position(diag.pos - CHECK_PREFIX.length);
    const end = this.lines.position(Math.max(diag.pos, diag.end) - CHECK_PREFIX.length);
    const message = [flattenMessage(diag), ...this.related(diag)].join('\n');
    return {
      kind,
      code: diag.code,
      category: category(diag.category),
      message,
      line: start.line,
      column: start.column,
      endLine: end.line,
      endColumn: end.column,
    };
  }

  /** Related information worth showing: notes in the program ("Did you forget to use 'await'?") and
   *  expected-type notes; "'x' is declared here" notes pointing into the SDK are left out. */
  private related(diag: NativeDiagnostic): string[] {
    const out: string[] = [];
    for (const info of diag.relatedInformation ?? []) {
      if (info.fileName === this.mainFile) {
        const at = this.lines.position(info.pos - CHECK_PREFIX.length);
        out.push(`  line ${at.line}, col ${at.column}: ${flattenMessage(info)}`);
      } else if (info.code !== 2728) {
        out.push(`  ${flattenMessage(info)}`);
      }
    }
    return out;
  }
}

/**
 * A diagnostic that is not in the program (in the SDK file, the configuration, or global): an internal
 * problem of isocode, reported at line 0 so that it is never silently dropped.
 */
export function internalDiagnostic(
  diag: NativeDiagnostic,
  sdkFile: string,
  sdkText: string,
): Diagnostic {
  let where = 'the compiler configuration';
  if (diag.fileName === sdkFile) {
    const at = new LineMap(sdkText).position(diag.pos);
    where = `the tool SDK (sdk.d.ts line ${at.line}, col ${at.column})`;
  }
  return {
    kind: 'typecheck',
    code: diag.code,
    category: category(diag.category),
    message: `Internal error in ${where}, not in your program: ${flattenMessage(diag)}`,
    line: 0,
    column: 0,
  };
}
