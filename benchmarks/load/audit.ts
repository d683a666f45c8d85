/**
 * The audit invariant: every accepted run has exactly one terminal record. The audit log is JSON
 * lines (one executor event a line); a run is a top-level `run_code` call (`tool/call` without a
 * parent), its terminal record the `tool/result` with the same call id.
 */
import { readFileSync } from 'node:fs';

/** The fields of an audit record the check reads. */
export interface AuditRecord {
  type: string;
  callId: string;
  name: string;
  parentId?: string | undefined;
}

/** What the audit check found. */
export interface AuditCheck {
  /** Top-level run_code calls recorded (`tool/call`). */
  runs: number;
  /** Top-level run_code terminal records (`tool/result`). */
  terminal: number;
  /** Runs with a `tool/call` and no terminal record. */
  lost: string[];
  /** Call ids with more than one terminal record. */
  duplicated: string[];
  /** Terminal records without a `tool/call`. */
  orphaned: string[];
  /** Call ids answered over HTTP (a 200 ToolResult) that have no terminal record. */
  answeredMissing: string[];
  /** Nested tool calls (any other call) with a `tool/call` and no `tool/result`. */
  lostNested: string[];
  /** Lines that are not JSON objects (a torn write). */
  malformedLines: number;
}

/** Parses a JSON-lines audit file; a missing file is an empty log. */
export function readAudit(path: string): { records: AuditRecord[]; malformedLines: number } {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { records: [], malformedLines: 0 };
  }
  const records: AuditRecord[] = [];
  let malformedLines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value === 'object' && value !== null && 'type' in value && 'callId' in value)
        records.push(value as AuditRecord);
      else malformedLines++;
    } catch {
      malformedLines++;
    }
  }
  return { records, malformedLines };
}

/** Checks the invariant over `records`, and that every id in `answered` has a terminal record. */
export function checkAudit(
  records: readonly AuditRecord[],
  answered: Iterable<string> = [],
  malformedLines = 0,
): AuditCheck {
  const calls = new Set<string>();
  const results = new Map<string, number>();
  const nestedCalls = new Set<string>();
  const nestedResults = new Set<string>();
  for (const r of records) {
    if (r.name !== 'run_code' || r.parentId !== undefined) {
      if (r.type === 'tool/call') nestedCalls.add(r.callId);
      else if (r.type === 'tool/result') nestedResults.add(r.callId);
      continue;
    }
    if (r.type === 'tool/call') calls.add(r.callId);
    else if (r.type === 'tool/result') results.set(r.callId, (results.get(r.callId) ?? 0) + 1);
  }
  return {
    runs: calls.size,
    terminal: [...results.values()].reduce((a, b) => a + b, 0),
    lost: [...calls].filter((id) => !results.has(id)),
    duplicated: [...results].filter(([, n]) => n > 1).map(([id]) => id),
    orphaned: [...results.keys()].filter((id) => !calls.has(id)),
    answeredMissing: [...new Set(answered)].filter((id) => !results.has(id)),
    lostNested: [...nestedCalls].filter((id) => !nestedResults.has(id)),
    malformedLines,
  };
}

/** True when nothing (run or nested call) was lost, duplicated, orphaned or torn. */
export function auditComplete(check: AuditCheck): boolean {
  return (
    check.lost.length === 0 &&
    check.duplicated.length === 0 &&
    check.orphaned.length === 0 &&
    check.answeredMissing.length === 0 &&
    check.lostNested.length === 0 &&
    check.malformedLines === 0
  );
}
