/**
 * The compile stage of run_code: type-checking a program against its SDK (native TypeScript 7 compiler
 * behind the {@link TypeChecker} interface) and transpiling it to a JS async function (oxc-transform).
 */

export type {
  CheckOptions,
  CheckerStats,
  Diagnostic,
  MapPosition,
  PositionMap,
  ProgramPosition,
  SdkSource,
  TranspileResult,
  TranspileVerdict,
  TypeChecker,
} from './types.js';
export { createNativeChecker } from './native-checker.js';
export type { NativeCheckerOptions } from './native-checker.js';
export { transpileProgram } from './transpile.js';
export { positionMapper } from './position-map.js';
export { formatDiagnostics, groupDiagnostics, DIAGNOSTICS_BUDGET_CHARS } from './format.js';
export type { DiagnosticGroup, FormatOptions } from './format.js';
export { hintFor } from './hints.js';
export { unfence, FENCE_NOTE } from './fences.js';
export type { Unfenced } from './fences.js';
