/**
 * The one tokenizer of the project: token counts with OpenAI's o200k_base encoding (gpt-tokenizer).
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

let encoding: Encoding | undefined;
/** Text that looks like a special token (`<|endoftext|>`) is counted as plain text, never refused. */
const PLAIN = { disallowedSpecial: new Set<string>() };

function load(): Encoding {
  if (!encoding) {
    const require = createRequire(import.meta.url);
    encoding = require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding;
  }
  return encoding;
}

/**
 * The number of o200k_base tokens of `text`. Total: any string counts (special-token look-alikes
 * count as the plain text they are); the empty string is 0 tokens. Loads the encoding on first use.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return load().countTokens(text, PLAIN);
}
