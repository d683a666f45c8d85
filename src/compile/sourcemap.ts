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
  let srcLine = 0;
  let srcColumn = 0;
  let genColumn = 0;
  const fields: number[] = [];
  let value = 0;
  let shift = 0;

  const endSegment = (): void => {
    if (fields.length === 0) return;
    genColumn += fields[0] ?? 0;
    if (fields.length >= 4) {
      srcLine += fields[2] ?? 0;
      srcColumn += fields[3] ?? 0;
      line.push({ genColumn, srcLine, srcColumn });
    }
    fields.length = 0;
  };

  for (let i = 0; i < mappings.length; i++) {
    const ch = mappings.charCodeAt(i);
    if (ch === 44 /* , */ || ch === 59 /* ; */) {
      endSegment();
      if (ch === 59) {
        line.sort((a, b) => a.genColumn - b.genColumn);
        lines.push(line);
        line = [];
        genColumn = 0;
      }
      continue;
    }
    const digit = ch < 128 ? (DIGIT[ch] ?? -1) : -1;
    if (digit < 0) throw new Error(`invalid source map character at ${i}`);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    fields.push(value % 2 === 1 ? -Math.floor(value / 2) : Math.floor(value / 2));
    value = 0;
    shift = 0;
  }
  endSegment();
  line.sort((a, b) => a.genColumn - b.genColumn);
  lines.push(line);
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
