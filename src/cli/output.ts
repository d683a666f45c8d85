/** How the CLI prints runs, failures and diagnostics. */
import type {
  JsonValue,
  LogLine,
  ProgramDiagnostic,
  RunCodeValue,
  RunFailureDetails,
  ToolResult,
} from '../index.js';

/** Where a command writes: stdout for results, stderr for status and errors. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** The process's streams. */
export const processIo: Io = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** One log line as the CLI shows it (`[warn] ...` for levels other than `log`). */
export function formatLog(line: LogLine): string {
  return line.level === 'log' ? line.text : `[${line.level}] ${line.text}`;
}

/** A program result: strings raw, anything else as indented JSON; null prints nothing. */
export function formatResult(result: JsonValue): string | undefined {
  if (result === null) return undefined;
  return typeof result === 'string' ? result : JSON.stringify(result, null, 2);
}

/**
 * `file:line:col - error TS2322: message`, as editors link them; a finding that is not TypeScript's
 * (a syntax error of the transpiler, a refusal) has no code: `file:1:1 - syntax error: message`.
 */
export function formatDiagnostic(label: string, d: ProgramDiagnostic): string {
  const kind = d.kind === 'syntax' ? 'syntax error' : 'error';
  const code = d.code !== undefined && d.code > 0 ? ` TS${d.code}` : '';
  const hint = d.hint !== undefined ? `\n  hint: ${d.hint}` : '';
  return `${label}:${d.line}:${d.column} - ${kind}${code}: ${d.message}${hint}`;
}

/** The run_code value of a successful result, when it has that shape. */
export function runValue(result: ToolResult & { ok: true }): RunCodeValue | undefined {
  const v = result.value;
  return isRecord(v) && Array.isArray(v.logs) && 'result' in v
    ? (v as unknown as RunCodeValue)
    : undefined;
}

/** The failure details of a CODE_RUN_FAILED result, when present. */
export function failureDetails(result: ToolResult & { ok: false }): RunFailureDetails | undefined {
  const d = result.error.details;
  return result.error.code === 'CODE_RUN_FAILED' && isRecord(d) && typeof d.kind === 'string'
    ? (d as unknown as RunFailureDetails)
    : undefined;
}

const LOGS_MARKER = '\n\nConsole output before the failure:';

/**
 * The `error: <kind>: <message>` line of a failed run: the failure kind for CODE_RUN_FAILED
 * (`typecheck`, `memory`, `timeout`, ...), otherwise the error code.
 */
export function failureLine(result: ToolResult & { ok: false }): string {
  const details = failureDetails(result);
  let message = result.error.message;
  const cut = message.indexOf(LOGS_MARKER);
  if (cut >= 0) message = message.slice(0, cut);
  if (details) {
    const prefix = `${details.kind}: `;
    if (message.startsWith(prefix)) message = message.slice(prefix.length);
    return `error: ${details.kind}: ${message}`;
  }
  return `error: ${result.error.code}: ${message}`;
}
