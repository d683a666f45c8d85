/**
 * Markdown fences around a program. Models often send a program the way they would show it in a
 * chat: inside ```` ```ts ```` … ```` ``` ````. The rule: a program that is ENTIRELY one fenced block
 * (only whitespace before the opening fence line and after the closing one, no other fence line in
 * between) is unwrapped; anything else (prose around the block, two blocks) is left as it is, since a
 * fence line may legitimately sit inside a template literal.
 *
 * The two fence lines are replaced by empty lines, not removed: every line of the code keeps its
 * number, so diagnostics and stack positions match the program the model wrote.
 */

/** An opening fence line: three backticks and an optional language tag (of a JS/TS dialect). */
const OPENING = /^[ \t]*```[ \t]*(?:ts|typescript|tsx|js|javascript|jsx|mts|cts)?[ \t]*\r?$/i;
/** A closing fence line. */
const CLOSING = /^[ \t]*```[ \t]*\r?$/;
/** Any line that starts a fence (a second block, or a block inside the one we would unwrap). */
const ANY_FENCE = /^[ \t]*```/;

/** The note a run reports when it unwrapped a fenced program. */
export const FENCE_NOTE =
  'The program was wrapped in a Markdown code fence (```); the fence lines were ignored. Send the code alone next time.';

/** A program after {@link unfence}. */
export interface Unfenced {
  /** The code to transpile, check and run (same line count as the original). */
  code: string;
  /** True when a fence was removed. */
  unfenced: boolean;
}

/**
 * Unwraps a program that is entirely one Markdown fenced block (see the module comment); returns
 * the program unchanged otherwise.
 */
export function unfence(program: string): Unfenced {
  // Cheap exit for the common case: no fence at all.
  if (!program.includes('```')) return { code: program, unfenced: false };
  const lines = program.split('\n');
  let first = 0;
  while (first < lines.length && (lines[first] ?? '').trim() === '') first++;
  let last = lines.length - 1;
  while (last > first && (lines[last] ?? '').trim() === '') last--;
  if (last <= first) return { code: program, unfenced: false };
  if (!OPENING.test(lines[first] ?? '') || !CLOSING.test(lines[last] ?? ''))
    return { code: program, unfenced: false };
  for (let i = first + 1; i < last; i++) {
    if (ANY_FENCE.test(lines[i] ?? '')) return { code: program, unfenced: false };
  }
  lines[first] = '';
  lines[last] = '';
  return { code: lines.join('\n'), unfenced: true };
}
