import { describe, expect, it } from 'vitest';
import {
  formatAgo,
  clipParts,
  decidedBy,
  formatDuration,
  formatTime,
  jsonPreview,
  limitHit,
  runError,
} from '../../console/src/format.js';

describe('console formatting', () => {
  it('formats durations and ages for reading at a glance', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(65_000)).toBe('1 min 05 s');
    expect(formatDuration(undefined)).toBe('–');
    expect(formatAgo(1000, 1000)).toBe('just now');
    expect(formatAgo(0, 125_000)).toBe('2 min ago');
    expect(formatTime(Date.UTC(2026, 11, 1, 10, 57, 9))).toBe('2026-12-01 10:57:09 UTC');
  });

  it('shows a time no Date can hold as "–" instead of throwing (a stored time is hostile)', () => {
    for (const at of [9e15, -9e15, Number.MAX_SAFE_INTEGER, NaN, Infinity]) {
      expect(formatTime(at)).toBe('–');
      expect(formatAgo(at, Date.now())).toBe('–');
    }
    expect(formatTime(8.64e15)).toBe('+275760-09-13 00:00:00 UTC');
    expect(formatAgo(8.64e15 - 86_400_000 * 400, 8.64e15)).toBe('+275759-08-10');
  });

  it('reads the error, its kind and the limit hit from a run', () => {
    const timedOut = {
      result: {
        ok: false,
        error: { code: 'CODE_RUN_FAILED', message: 'wall', details: { kind: 'timeout' } },
      },
    };
    expect(runError(timedOut)).toEqual({
      code: 'CODE_RUN_FAILED',
      message: 'wall',
      kind: 'timeout',
    });
    expect(limitHit(timedOut)).toBe('timeout');
    expect(
      limitHit({
        error: { code: 'CODE_RUN_FAILED', message: 'x', details: { kind: 'exception' } },
      }),
    ).toBeUndefined();
    expect(runError({ result: { ok: true, value: 1 } })).toBeUndefined();
    expect(jsonPreview({ a: 'x'.repeat(200) }, 20).text).toHaveLength(20);
  });

  it('cuts shown text without cutting an escape, which stays marked', () => {
    const parts = [
      { text: 'ab', escaped: false },
      { text: '\\u202E', escaped: true },
      { text: 'cdef', escaped: false },
    ];
    expect(clipParts(parts, 20).parts).toEqual(parts);
    expect(clipParts(parts, 10).parts).toEqual([
      parts[0],
      parts[1],
      { text: 'c', escaped: false },
      { text: '…', escaped: false },
    ]);
    // No room for the whole escape: it is left out, not cut.
    expect(clipParts(parts, 5).parts).toEqual([parts[0], { text: '…', escaped: false }]);
    expect(jsonPreview({ k: 'x\u202Ey'.repeat(30) }, 16).parts.filter((p) => p.escaped)).toEqual([
      { text: '\\u202E', escaped: true },
    ]);
  });

  it('names who decided: a named key by its name, an anonymous key by its scope', () => {
    expect(decidedBy('key:alice').label).toBe('alice');
    expect(decidedBy('http:alpha:0b9c6a3e-1f2d-4c5b-9a8e-7d6c5b4a3f21')).toEqual({
      label: 'a key of scope alpha',
      detail: 'over the HTTP API, request 0b9c6a3e-1f2d-4c5b-9a8e-7d6c5b4a3f21',
    });
    expect(decidedBy('mcp-elicitation:claude').label).toBe('claude (MCP elicitation)');
  });
});
