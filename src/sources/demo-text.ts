/** The built-in demo text toolkit: `text.word_count`, `text.transform`, `text.split_lines`, `text.search`. */
import { z } from 'zod';
import { defineTool } from '../index.js';
import type { ToolDefinition } from '../index.js';
import { cutText } from '../text/clip.js';

/** Longest input text the text tools accept, in UTF-16 code units. */
export const TEXT_MAX_CHARS = 1_000_000;

/** The modes of `text.transform`. */
export const TRANSFORM_MODES = [
  'upper',
  'lower',
  'title',
  'reverse',
  'trim',
  'snake_case',
] as const;
/** A mode of `text.transform`. */
export type TransformMode = (typeof TRANSFORM_MODES)[number];

const text = z
  .string()
  .max(TEXT_MAX_CHARS)
  .describe(`The input text (at most ${TEXT_MAX_CHARS} characters).`);
const LINE_BREAK = /\r\n|\r|\n/;

const countInput = z.object({ text });
const countOutput = z.object({
  words: z.number().int().describe('Runs of non-whitespace characters.'),
  characters: z.number().int().describe('Unicode code points.'),
  lines: z
    .number()
    .int()
    .describe('Lines (0 for the empty text; a trailing line break does not start a new line).'),
});
const transformInput = z.object({
  text,
  mode: z
    .enum(TRANSFORM_MODES)
    .describe(
      'upper: UPPER CASE; lower: lower case; title: Each Word Capitalized; reverse: characters in reverse order; trim: surrounding whitespace removed; snake_case: words lower-cased and joined by underscores.',
    ),
});
const transformOutput = z.object({ text: z.string().describe('The transformed text.') });
const splitInput = z.object({
  text,
  trim: z.boolean().default(false).describe('Trim whitespace around each line. Default false.'),
  skipEmpty: z
    .boolean()
    .default(false)
    .describe('Leave out lines that are empty (after trimming, if trim is set). Default false.'),
});
const splitOutput = z.object({ lines: z.array(z.string()), count: z.number().int() });
const searchInput = z.object({
  text,
  query: z
    .string()
    .min(1)
    .max(10_000)
    .describe('The substring to find (plain text, not a regular expression).'),
  caseSensitive: z.boolean().default(true).describe('Match case exactly. Default true.'),
  maxMatches: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('Most matches to return (1–1000). Default 100.'),
});
const searchMatch = z.object({
  index: z
    .number()
    .int()
    .describe(
      'Offset of the match in the text, in UTF-16 code units (as String.prototype.indexOf).',
    ),
  line: z.number().int().describe('1-based line number.'),
  column: z.number().int().describe('1-based column, in UTF-16 code units.'),
  lineText: z
    .string()
    .describe('The whole line containing the start of the match (at most 500 characters).'),
});
const searchOutput = z.object({
  count: z
    .number()
    .int()
    .describe('Total matches (non-overlapping), including those beyond maxMatches.'),
  matches: z.array(searchMatch),
});

function splitLines(value: string): string[] {
  if (value === '') return [];
  const lines = value.split(LINE_BREAK);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function words(value: string): string[] {
  return value.split(/\s+/u).filter((w) => w !== '');
}

function transform(value: string, mode: TransformMode): string {
  switch (mode) {
    case 'upper':
      return value.toUpperCase();
    case 'lower':
      return value.toLowerCase();
    case 'title':
      return value.replace(/\S+/gu, (w) => {
        const [first = '', ...rest] = [...w];
        return first.toUpperCase() + rest.join('').toLowerCase();
      });
    case 'reverse':
      return [...value].reverse().join('');
    case 'trim':
      return value.trim();
    case 'snake_case':
      return value
        .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w !== '')
        .map((w) => w.toLowerCase())
        .join('_');
  }
}

function search(
  value: string,
  query: string,
  caseSensitive: boolean,
  maxMatches: number,
): z.output<typeof searchOutput> {
  const haystack = caseSensitive ? value : value.toLowerCase();
  const needle = caseSensitive ? query : query.toLowerCase();
  // Lower-casing can change lengths (e.g. 'İ'); fall back to exact search when it does.
  const exact = haystack.length !== value.length || needle.length !== query.length;
  const h = exact ? value : haystack;
  const n = exact ? query : needle;
  const lineStarts = [0];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 10 || (c === 13 && value.charCodeAt(i + 1) !== 10)) lineStarts.push(i + 1);
  }
  const lineOf = (index: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const matches: z.output<typeof searchMatch>[] = [];
  let count = 0;
  for (let at = h.indexOf(n); at !== -1; at = h.indexOf(n, at + n.length)) {
    count++;
    if (matches.length >= maxMatches) continue;
    const li = lineOf(at);
    const start = lineStarts[li] ?? 0;
    const next = lineStarts[li + 1];
    const lineText = value
      .slice(start, next === undefined ? value.length : next)
      .replace(/\r?\n$|\r$/, '');
    matches.push({
      index: at,
      line: li + 1,
      column: at - start + 1,
      lineText: cutText(lineText, 500),
    });
  }
  return { count, matches };
}

/** The text toolkit. Pure functions; every tool is concurrency-safe. */
export function textTools(): ToolDefinition[] {
  return [
    defineTool({
      name: 'text.word_count',
      description: 'Counts the words, characters (Unicode code points) and lines of a text.',
      input: countInput,
      output: countOutput,
      isConcurrencySafe: true,
      execute: ({ text: t }) => ({
        words: words(t).length,
        characters: [...t].length,
        lines: splitLines(t).length,
      }),
    }),
    defineTool({
      name: 'text.transform',
      description: `Transforms a text by mode: ${TRANSFORM_MODES.join(', ')}.`,
      input: transformInput,
      output: transformOutput,
      isConcurrencySafe: true,
      execute: ({ text: t, mode }) => ({ text: transform(t, mode) }),
    }),
    defineTool({
      name: 'text.split_lines',
      description:
        'Splits a text into lines (on \\n, \\r\\n or \\r), optionally trimming each line and leaving out empty ones.',
      input: splitInput,
      output: splitOutput,
      isConcurrencySafe: true,
      execute: ({ text: t, trim = false, skipEmpty = false }) => {
        let lines = splitLines(t);
        if (trim) lines = lines.map((l) => l.trim());
        if (skipEmpty) lines = lines.filter((l) => l !== '');
        return { lines, count: lines.length };
      },
    }),
    defineTool({
      name: 'text.search',
      description:
        'Finds every occurrence of a plain substring (not a regular expression) in a text, with line and column numbers. Matches do not overlap.',
      input: searchInput,
      output: searchOutput,
      isConcurrencySafe: true,
      execute: ({ text: t, query, caseSensitive = true, maxMatches = 100 }) =>
        search(t, query, caseSensitive, maxMatches),
    }),
  ];
}
