/**
 * How the run store holds hostile values (one owner for every engine). Everything a program, a
 * request or a tool carries — program text, descriptions, reasons, arguments, results, errors,
 * event data, idempotency keys — is stored as the text `JSON.stringify` makes of it: that text
 * escapes U+0000, every control character and lone surrogates (`\uD800`), so it is valid UTF-8
 * with no NUL byte, which PostgreSQL `text` and SQLite `TEXT` hold exactly, and reading it back
 * with `JSON.parse` gives the same value, code point for code point. (`jsonb` is not used: it
 * rejects `\u0000` and reorders keys.) Ids that no run could have are refused before any query.
 */
import type { JsonValue } from '../json.js';

/** The stored text of a JSON value (`null` for undefined: SQL NULL). */
export function encodeJson(value: JsonValue | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** The value of stored JSON text (undefined for SQL NULL or anything that is not text). */
export function decodeJson(text: unknown): JsonValue | undefined {
  if (typeof text !== 'string') return undefined;
  return JSON.parse(text) as JsonValue;
}

/** The stored text of a hostile string: its JSON string literal (`null` for undefined). */
export function encodeText(value: string | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** The string of stored text (undefined for SQL NULL). */
export function decodeText(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const value: unknown = JSON.parse(text);
  return typeof value === 'string' ? value : String(value);
}

/**
 * Ids isocode makes (`run_<uuid>`, `apr_<uuid>`, test ids) and a client could ask for: 1 to 200
 * characters of letters, digits and `_ . : -`. Anything else (NUL, controls, bidi, spaces, too
 * long) names no run: lookups answer "unknown" without a query.
 */
const STORABLE_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** True when `id` could name a stored run or approval. */
export function isStorableId(id: string): boolean {
  return STORABLE_ID.test(id);
}
