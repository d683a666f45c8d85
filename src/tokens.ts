/**
 * The one tokenizer of the project: token counts with OpenAI's o200k_base encoding (gpt-tokenizer,
 * an optional peer dependency: without it every count is the character-class estimate below).
 * The SDK statistics (`isocode sdk --stats`), the savings ledger and the discovery threshold all count
 * with this function, so their figures agree.
 *
 * The encoding's tables are large (~0.3 s to load): they are required on the first count only, so a
 * process that never counts (the CLI's start-up, a plain run) never pays for them.
 */
import { createRequire } from 'node:module';

interface Encoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

/** The encoding once loaded; `null` once it turned out not to be installed. */
let encoding: Encoding | null | undefined;
/** Text that looks like a special token (`<|endoftext|>`) is counted as plain text, never refused. */
const PLAIN = { disallowedSpecial: new Set<string>() };

/** The one line a process prints when it counts without the tokenizer. */
export const TOKENIZER_MISSING =
  'gpt-tokenizer is not installed: token figures (sdk --stats, the savings ledger, the discovery threshold) are estimates from character classes (typically within a third of the exact count); npm install gpt-tokenizer for exact o200k_base counts';

function load(): Encoding | null {
  if (encoding === undefined) {
    const require = createRequire(import.meta.url);
    try {
      encoding = require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding;
    } catch (error) {
      // An optional peer (issue 27's lean install): absent, counts fall back to the estimate.
      if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
      encoding = null;
      process.emitWarning(TOKENIZER_MISSING, { code: 'ISOCODE_TOKENIZER_MISSING' });
    }
  }
  return encoding;
}

/** Whether {@link countTokens} counts exactly (gpt-tokenizer is installed) or estimates. */
export function tokenCountsExact(): boolean {
  return load() !== null;
}

/**
 * The number of o200k_base tokens of `text`. Total: any string counts (special-token look-alikes
 * count as the plain text they are); the empty string is 0 tokens. Loads the encoding on first use;
 * without it (gpt-tokenizer is an optional peer dependency) the {@link estimateTokens} figure.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const exact = load();
  return exact === null ? estimateTokens(text) : exact.countTokens(text, PLAIN);
}

/**
 * Tokens per character by class, fitted (least squares) on o200k_base counts of real texts here:
 * JSON (package-lock, tool-result rows, diagnostics), prose (README, docs), code (src) and CJK
 * (TypeScript's zh-CN and ja messages). Mean error per corpus: JSON -22 %, prose +24 %, code +12 %,
 * CJK 0 %, CJK in JSON +1 % (docs/decisions/029-host-work.md).
 */
const PER_ALNUM = 0.25;
const PER_ASCII_OTHER = 0.33;
const PER_NON_ASCII = 0.75;

/**
 * An estimate of the o200k_base tokens of `text` from its character classes (ASCII letters and
 * digits, other ASCII, everything else), in one pass with no tokenizer: linear in the length with a
 * tiny constant, so it is safe on the host's event loop for any text a program returns. The empty
 * string is 0; any other text is at least 1.
 */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  let alnum = 0;
  let other = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 128) continue;
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) alnum += 1;
    else other += 1;
  }
  const rest = text.length - alnum - other;
  return Math.max(
    1,
    Math.round(alnum * PER_ALNUM + other * PER_ASCII_OTHER + rest * PER_NON_ASCII),
  );
}
