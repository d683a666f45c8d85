/**
 * A minimal source-map reader: decodes the `mappings` field (Base64 VLQ, source map v3) and finds the
 * original position of a generated one. No dependency; only what mapping runtime errors back needs.
 */

/** One decoded mapping segment: generated column → original line and column (all 0-based). */
interface Segment {
  genColumn: number;
  srcLine: number;
  srcColumn: number;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;

/** Decodes a v3 `mappings` string into per-generated-line segments sorted by generated column. */
export function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let line: Segment[] = [];
  let sorted = true;
  let genColumn = 0;
  let srcLine = 0;
  let srcColumn = 0;
  let i = 0;
  const length = mappings.length;
  while (i < length) {
    const ch = mappings.charCodeAt(i);
    if (ch === 59 /* ; */) {
      lines.push(sorted ? line : line.sort((a, b) => a.genColumn - b.genColumn));
      line = [];
      sorted = true;
      genColumn = 0;
      i++;
      continue;
    }
    if (ch === 44 /* , */) {
      i++;
      continue;
    }
    // One segment: 1, 4 or 5 VLQ fields.
    let field = 0;
    let segGen = 0;
    let segLine = 0;
    let segColumn = 0;
    while (i < length) {
      const c = mappings.charCodeAt(i);
      if (c === 44 || c === 59) break;
      let value = 0;
      let shift = 0;
      let digit: number;
      do {
        const code = mappings.charCodeAt(i++);
        digit = code < 128 ? (DIGIT[code] ?? -1) : -1;
        if (digit < 0 || shift > 30) throw new Error(`invalid source map mappings at ${i - 1}`);
        value |= (digit & 31) << shift;
        shift += 5;
      } while (digit & 32);
      const decoded = value & 1 ? -(value >>> 1) : value >>> 1;
      if (field === 0) segGen = decoded;
      else if (field === 2) segLine = decoded;
      else if (field === 3) segColumn = decoded;
      field++;
    }
    genColumn += segGen;
    if (field >= 4) {
      srcLine += segLine;
      srcColumn += segColumn;
      const previous = line[line.length - 1];
      if (previous !== undefined && previous.genColumn > genColumn) sorted = false;
      line.push({ genColumn, srcLine, srcColumn });
    }
  }
  lines.push(sorted ? line : line.sort((a, b) => a.genColumn - b.genColumn));
  return lines;
}

/**
 * The original (0-based) position of a generated (0-based) position: the last segment of that line at or
 * before `genColumn`, else the first segment of the line; `undefined` when the line has no mapping.
 */
export function originalPosition(
  lines: readonly Segment[][],
  genLine: number,
  genColumn: number,
): { line: number; column: number } | undefined {
  const segments = lines[genLine];
  if (segments === undefined || segments.length === 0) return undefined;
  let lo = 0;
  let hi = segments.length - 1;
  let found: Segment | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const seg = segments[mid];
    if (seg === undefined) break;
    if (seg.genColumn <= genColumn) {
      found = seg;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  found ??= segments[0];
  return found === undefined ? undefined : { line: found.srcLine, column: found.srcColumn };
}
