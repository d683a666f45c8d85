/** JSON with comments and trailing commas (the dialect of editors' settings files). */
import { thrownText } from '../errors.js';

/** Why a JSONC text does not parse, with a 1-based position when known. */
export class JsoncSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
    readonly column: number | undefined,
  ) {
    super(message);
    this.name = 'JsoncSyntaxError';
  }
}

/**
 * Blanks out `//` and `/* *\/` comments and trailing commas (before `}` or `]`) with spaces,
 * keeping every other character at its offset, so JSON.parse positions stay true.
 */
export function blankJsoncExtras(text: string): string {
  const out = text.split('');
  let i = 0;
  let lastComma = -1; // offset of a comma that may turn out to be trailing
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      lastComma = -1;
      i++;
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n' && text[i] !== '\r') out[i++] = ' ';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      for (; i < stop; i++) if (text[i] !== '\n' && text[i] !== '\r') out[i] = ' ';
    } else if (c === ',') {
      lastComma = i++;
    } else if (c === '}' || c === ']') {
      if (lastComma !== -1) out[lastComma] = ' ';
      lastComma = -1;
      i++;
    } else {
      if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') lastComma = -1;
      i++;
    }
  }
  return out.join('');
}

/** Parses JSONC text. Throws {@link JsoncSyntaxError} with a line and column when it can. */
export function parseJsonc(text: string): unknown {
  const blanked = blankJsoncExtras(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  try {
    return JSON.parse(blanked) as unknown;
  } catch (error) {
    const message = thrownText(error);
    const lineCol = /line (\d+) column (\d+)/.exec(message);
    if (lineCol) return fail(message, Number(lineCol[1]), Number(lineCol[2]));
    const pos = /position (\d+)/.exec(message);
    if (pos) {
      const offset = Number(pos[1]);
      const before = blanked.slice(0, offset).split(/\r\n|\r|\n/);
      return fail(message, before.length, (before[before.length - 1]?.length ?? 0) + 1);
    }
    return fail(message, undefined, undefined);
  }
}

function fail(message: string, line: number | undefined, column: number | undefined): never {
  const clean = message
    .replace(/\s*\(line \d+ column \d+\)$/, '')
    .replace(/ in JSON at position \d+.*$/, '');
  throw new JsoncSyntaxError(clean, line, column);
}
