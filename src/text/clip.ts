/**
 * The one rule for cutting text that someone else wrote (a program, a tool, a request) to a bound:
 * at most `max` UTF-16 code units, and never between the two halves of a surrogate pair — half a
 * pair is a lone surrogate, which a JSON consumer may reject and a terminal shows as garbage.
 *
 * Text already made visible for a human (src/text/visible.ts) is cut with `clipVisible`, which also
 * keeps the escapes that module wrote whole.
 */

/** The end of a cut at `max` that keeps surrogate pairs whole (`max` or `max - 1`). */
function pairSafeEnd(text: string, max: number): number {
  if (max <= 0) return 0;
  const last = text.charCodeAt(max - 1);
  return last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
}

/** `text` cut to at most `max` code units, nothing added. */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, pairSafeEnd(text, max));
}

/**
 * `text` within `max` code units: if longer, its head and `… (N more characters)`, the whole
 * result still within `max` — so clipping clipped text again changes nothing.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const suffix = (end: number) => `… (${text.length - end} more characters)`;
  // The suffix's length depends on where the cut is; the digits only shrink as the cut moves right.
  let end = Math.max(0, max - suffix(0).length);
  end = pairSafeEnd(text, Math.max(0, max - suffix(end).length));
  return `${text.slice(0, end)}${suffix(end)}`;
}
