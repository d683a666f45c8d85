/** How the CLI prints runs, failures and diagnostics. */
import type {
  JsonValue,
  LogLine,
  ProgramDiagnostic,
  RunCodeValue,
  RunFailureDetails,
  ToolResult,
} from '../index.js';
import type { SourceStatus } from '../sources/load.js';
import { clipText } from '../text/clip.js';
import { visible, visibleJson } from '../text/visible.js';

/**
 * Where a command writes: stdout for results, stderr for status and errors. Nothing reaches a
 * terminal as written (decision 028): human text goes through the visible-text rule (`text` mode:
 * an ESC a program logged is shown `\u001B`), machine output through its `code` mode.
 */
export interface Io {
  /** Human text to stdout (escaped by the sink). */
  out(text: string): void;
  /** Human text to stderr (escaped by the sink). */
  err(text: string): void;
  /**
   * Machine output to stdout (JSON, declarations): hidden code points escaped, backslashes kept,
   * so JSON made by {@link visibleJson} and generated code are written as they are.
   */
  data(text: string): void;
}

const line = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

/** The process's streams, behind the visible-text rule. */
export const processIo: Io = {
  out: (text) => void process.stdout.write(line(visible(text))),
  err: (text) => void process.stderr.write(line(visible(text))),
  data: (text) => void process.stdout.write(line(visible(text, 'code'))),
};

/** Indented JSON for a person or a parser: hidden code points as JSON escapes (same value). */
export function humanJson(value: unknown): string {
  return visibleJson(value, 2) ?? 'null';
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** One log line as the CLI shows it (`[warn] ...` for levels other than `log`). */
export function formatLog(line: LogLine): string {
  return line.level === 'log' ? line.text : `[${line.level}] ${line.text}`;
}

/**
 * A program result: a string as text (`io.out`), anything else as indented JSON (`io.data`);
 * null prints nothing.
 */
export function printResult(io: Io, result: JsonValue): void {
  if (result === null) return;
  if (typeof result === 'string') io.out(result);
  else io.data(humanJson(result));
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

/** How many left-out entries a source's start-up line names (the status lists them all). */
const LEFT_OUT_NAMED = 5;

/**
 * One line per source that left something out (an upstream tool or operation it cannot offer), for
 * an operator starting a server: the count and the first few with why. Names and reasons are the
 * upstream's text, clipped (the sink escapes what a terminal would act on).
 */
export function leftOutLines(sources: readonly SourceStatus[]): string[] {
  const lines: string[] = [];
  for (const source of sources) {
    const [left, noun] =
      source.kind === 'mcp'
        ? [source.skippedTools.map((t) => [t.name, t.reason] as const), 'tool']
        : source.kind === 'openapi'
          ? [source.skippedOperations.map((o) => [o.operation, o.reason] as const), 'operation']
          : [[], ''];
    if (left.length === 0) continue;
    const named = left
      .slice(0, LEFT_OUT_NAMED)
      .map(([name, why]) => `${clipText(name, 80)} (${clipText(why, 160)})`)
      .join('; ');
    const more = left.length > LEFT_OUT_NAMED ? `; and ${left.length - LEFT_OUT_NAMED} more` : '';
    lines.push(
      `source "${source.name}": ${left.length} ${noun}${left.length === 1 ? '' : 's'} left out: ${named}${more}`,
    );
  }
  return lines;
}
