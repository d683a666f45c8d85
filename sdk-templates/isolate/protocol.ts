/**
 * The wire protocol between the host and the isolate bootstrap. Only strings cross the boundary:
 * every message is a one-character tag followed by a payload. Shared by both sides (the host
 * imports this file; the isolate compiles it as a module) so the tags cannot drift apart.
 */

/** Tags of a reply to a binding call (host → isolate). */
export const REPLY = {
  /** `V` + JSON of the tool's value. */
  value: 'V',
  /** `F` + JSON of `{ code, message }`. */
  failure: 'F',
} as const;

/**
 * Separates the number of messages the isolate sent (logs and calls) from the tagged outcome:
 * `<sent>:<tag><payload>`.
 */
export const OUTCOME_SEPARATOR = ':';

/** Tags of the program's outcome (isolate → host). */
export const OUTCOME = {
  /** `R` + JSON of the returned value (`undefined` → `null`). */
  result: 'R',
  /** `E` + JSON of a {@link ThrownDescription}. */
  exception: 'E',
  /** `I` + a message: the returned value is not JSON. */
  invalid: 'I',
  /** `L` + the result's length in UTF-16 units: certainly over `maxResultBytes`. */
  tooLarge: 'L',
} as const;

/** What the isolate reports about a thrown value. All strings are capped in length. */
export interface ThrownDescription {
  /** `error`: an object (its `name`/`message`/`stack` were read); `value`: any other thrown value. */
  kind: 'error' | 'value';
  name: string;
  message: string;
  /** V8's stack text (may be empty); the host finds the program's frame in it. */
  stack: string;
  /** Set for a `ToolCallError` raised by the bridge. */
  toolName?: string;
  code?: string;
}

/** Options the host passes to `install` as JSON. */
export interface InstallOptions {
  bindings: { path: string[]; tool: string }[];
  maxCalls: number;
  maxArgBytes: number;
  maxLogBytes: number;
  maxResultBytes: number;
}

/** The console methods a program may use, in the order they are installed. */
export const LOG_LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const;
/** One console level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The script name of the program; the host finds the program's frames by it. */
export const PROGRAM_FILENAME = 'isocode:program.js';
/** Prefix of the bootstrap modules' names in stacks (no host path ever appears). */
export const MODULE_PREFIX = 'isocode:isolate/';

/** Longest message or name the isolate sends for a thrown value. */
export const MAX_ERROR_TEXT = 4096;
/** Longest stack text the isolate sends for a thrown value. */
export const MAX_STACK_TEXT = 8192;
