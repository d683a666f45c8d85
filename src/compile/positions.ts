/** Offset ↔ line/column arithmetic on JS strings (UTF-16 code units), and UTF-8 byte offsets → UTF-16. */

import type { ProgramPosition } from './types.js';

/** Line starts of a text, for turning UTF-16 offsets into 1-based line/column positions. */
export class LineMap {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 10) this.starts.push(i + 1);
      else if (ch === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.starts.push(i + 1);
      } else if (ch === 0x2028 || ch === 0x2029) this.starts.push(i + 1);
    }
  }

  /** Number of lines (at least 1). */
  get lineCount(): number {
    return this.starts.length;
  }

  /** The 1-based position of a UTF-16 `offset`, clamped into `[0, text.length]`. */
  position(offset: number): ProgramPosition {
    const off = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - (this.starts[lo] ?? 0) + 1 };
  }
}

/** Converts a UTF-8 byte offset into `text` to a UTF-16 offset (offsets inside a character round down). */
export function utf8ToUtf16Offset(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    const cp = text.codePointAt(i) ?? 0;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > byteOffset) break;
    bytes += size;
    i += cp >= 0x10000 ? 2 : 1;
  }
  return i;
}
