/**
 * The wire protocol between the host and the isolate bootstrap. Only strings cross the boundary:
 * every message is a one-character tag followed by a payload. Shared by both sides (the host
 * imports this file; the isolate compiles it as a module) so the tags cannot drift apart.
 */

/**
 * Kinds of the one-way messages the isolate sends through the run's host port (the first argument
 * of each message): `[call, id, tool, argsJson]` (in a durable run
 * `[call, id, tool, argsJson, stack, valuesJson]`, see `durable.ts`), `[log, level, text]`,
 * `[outcome, text]`.
 */
export const MESSAGE = {
  call: 'c',
  log: 'l',
  outcome: 'o',
} as const;

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

/** Tags of the program's outcome (isolate → host, sent once through the run's outcome reference). */
export const OUTCOME = {
  /** `R` + JSON of the returned value (`undefined` → `null`). */
  result: 'R',
  /** `E` + JSON of a {@link ThrownDescription}. */
  exception: 'E',
  /** `I` + a message: the returned value is not JSON. */
  invalid: 'I',
  /** `L` + the result's length in UTF-16 units: certainly over `maxResultBytes`. */
  tooLarge: 'L',
  /** `X` + a message: the run could not be set up in the isolate (a bug, never the program's doing). */
  setupFailed: 'X',
} as const;

/**
 * The export of the entry module the bootstrap script completes with: `prepare()` locks the fresh
 * context down and returns the run's `start` function (see `bootstrap.ts`).
 */
export const BOOTSTRAP_ENTRY = 'prepare';

/**
 * The export the bootstrap script of a V8 startup snapshot completes with: `prepareSnapshot()`
 * hardens the context the snapshot captures (all of `prepare()` but the removal of globals) and
 * leaves the claim function on the global under {@link SNAPSHOT_CLAIM}. Every context deserialized
 * from the snapshot runs the claim script once, before anything else runs in it: the claim removes
 * itself and the globals every context removes, and returns `entry`
 * (docs/decisions/039-isolate-snapshot.md).
 */
export const SNAPSHOT_ENTRY = 'prepareSnapshot';

/** The global the claim function waits under in a context made from the snapshot. */
export const SNAPSHOT_CLAIM = '__isocodeClaim';

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
  /**
   * For a thrown value that is not an Error (`kind: 'value'`, or an object without the Error
   * brand): a bounded JSON preview of it (valid JSON, about {@link MAX_THROWN_JSON} characters).
   */
  json?: string;
}

/**
 * The `tools` tree as the host sends it: a **tool index**, one text per scope catalog, built once by
 * the host (`src/sandbox/bindings.ts`) and searched by the isolate without parsing it whole, so a
 * run pays for the names its program touches, not for the size of the catalog (`tools.ts`).
 *
 * One line per node of the tree (every binding's path and every prefix of it), in the order the
 * nodes first appear in the bindings (a node's line comes before its children's):
 * `LINE key TOOL kind tool`, where `key` is the node's path segments, each as `JSON.stringify` text
 * (never holding a raw `LINE` or `TOOL` character), joined by `SEGMENT`; `kind` is one of
 * {@link TOOL_NODE}; `tool` is the `JSON.stringify` text of the tool's name (empty for a namespace).
 * The node at `tools.a.b` is found by searching `LINE "a","b" TOOL`; a JSON string token ends at
 * its first unescaped quote, so the search never matches inside another segment.
 */
export const TOOL_INDEX = {
  line: '\n',
  tool: '\t',
  segment: ',',
} as const;

/** Kinds of a node of the tool index (see {@link TOOL_INDEX}). */
export const TOOL_NODE = {
  /** A namespace only. */
  namespace: 'n',
  /** A tool only. */
  tool: 't',
  /** A tool that is also a namespace (`tools.db()` and `tools.db.query()`). */
  both: 'b',
} as const;

/**
 * The per-run limits the isolate applies before crossing (the host checks each again). The host
 * passes them in the program's script, as the hook's first arguments (see {@link programPrefix}).
 */
export interface RunLimits {
  maxCalls: number;
  maxArgBytes: number;
  maxLogBytes: number;
  maxResultBytes: number;
}

/** The console methods a program may use, in the order they are installed. */
export const LOG_LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const;
/** One console level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The global function through which the program's script starts the run. The host compiles
 * `programPrefix(limits) + js + PROGRAM_SUFFIX` with a line offset of -1 (so the program's lines
 * keep their numbers) and runs it with `runIgnored`: the script hands the hook the run's limits and
 * a thunk of the program's function expression, and the hook — defined by `install`, deleted on
 * its first call before the thunk runs — starts the program. One one-way crossing instead of a
 * `run` whose result (the function) the host would have to wait for and pass back in.
 */
export const PROGRAM_HOOK = '__isocode_start__';

/**
 * What the host puts before the program's JS (a line of its own); the limits are safe integers.
 * `recorded` makes the run durable: the JSON text of `[clock[], random[]]`, the values of
 * `Date.now()`/`new Date()` and `Math.random()` the run produced in an earlier life (served first,
 * see `durable.ts`); it is passed as a string literal.
 */
export function programPrefix(limits: RunLimits, recorded?: string): string {
  return (
    PROGRAM_HOOK +
    '(' +
    limits.maxCalls +
    ', ' +
    limits.maxArgBytes +
    ', ' +
    limits.maxLogBytes +
    ', ' +
    limits.maxResultBytes +
    ', ' +
    (recorded === undefined ? '0' : JSON.stringify(recorded)) +
    ', () => (\n'
  );
}

/**
 * Most values of `Date.now()`, `new Date()` and `Math.random()` together that one durable run
 * records (past it, they throw a `RangeError` in the program); the host refuses more too.
 */
export const MAX_RECORDED_VALUES = 100_000;
/** What the host puts after the program's JS (on a line of its own). */
export const PROGRAM_SUFFIX = '\n));';

/** The script name of the program; the host finds the program's frames by it. */
export const PROGRAM_FILENAME = 'isocode:program.js';
/** Prefix of the bootstrap modules' names in stacks (no host path ever appears). */
export const MODULE_PREFIX = 'isocode:isolate/';

/** Characters of the JSON preview of a thrown non-Error value (see `ThrownDescription.json`). */
export const MAX_THROWN_JSON = 2048;

/** Deepest nesting of a returned value; equals the host's `MAX_JSON_DEPTH` (src/json.ts). */
export const MAX_RESULT_DEPTH = 256;

/** Longest message or name the isolate sends for a thrown value. */
export const MAX_ERROR_TEXT = 4096;
/** Longest stack text the isolate sends for a thrown value. */
export const MAX_STACK_TEXT = 8192;
