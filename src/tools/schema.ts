/**
 * Schemas: a tool's input/output is a zod 4 schema or a plain JSON Schema object. Both become a
 * JSON Schema (for catalogs and the SDK) and a validator (for the executor).
 */
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction, ErrorObject } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { IsocodeError, thrownText } from '../errors.js';
import type { JsonSchema, SchemaLike } from './types.js';
import { clipText } from '../text/clip.js';
import { MAX_JSON_DEPTH } from '../json.js';

/** One failed check, with a JSON-path-like location (`$.user.name`). */
export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * How much of a failed validation is reported: the issues (the first ones), and the characters of
 * each one's path and message. Both carry what the caller sent (unknown keys, long property names),
 * so a request or a program cannot make an error as large as its body.
 */
export const ISSUE_LIMITS = { issues: 20, pathChars: 200, messageChars: 300 } as const;

/** `issues` within {@link ISSUE_LIMITS}; one last issue says how many were left out. */
export function boundIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const kept = issues.slice(0, ISSUE_LIMITS.issues).map((i) => ({
    path: clipText(i.path, ISSUE_LIMITS.pathChars),
    message: clipText(i.message, ISSUE_LIMITS.messageChars),
  }));
  if (issues.length > ISSUE_LIMITS.issues)
    kept.push({
      path: '$',
      message: `${issues.length - ISSUE_LIMITS.issues} more issues not shown`,
    });
  return kept;
}

/** Issues in one line, for messages: `$.a: expected string; $.b: required`. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join('; ');
}

/** The message of a call whose arguments fail the tool's input schema (the executor's INVALID_ARGS). */
export function invalidArgsMessage(toolName: string, issues: readonly ValidationIssue[]): string {
  return `invalid arguments for ${toolName}: ${formatIssues(issues)}`;
}

/** The outcome of validating a value. */
export type Validation = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

/** A schema ready for use: its JSON Schema form and a validator. */
export interface CompiledSchema {
  jsonSchema: JsonSchema;
  validate(value: unknown): Validation;
}

let ajv07: Ajv | undefined;
let ajv2020: Ajv2020 | undefined;

/**
 * ajv and ajv-formats (~90 modules, 45-80 ms to load), required on the first JSON Schema compiled: a
 * process whose tools are all zod schemas (the CLI's built-in demo tools) never loads them.
 */
function ajvModules(): {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
  addFormats: (ajv: Ajv | Ajv2020) => void;
} {
  const require = createRequire(import.meta.url);
  const formats = require('ajv-formats') as { default: (ajv: Ajv | Ajv2020) => void };
  return {
    Ajv: (require('ajv') as { Ajv: typeof Ajv }).Ajv,
    Ajv2020: (require('ajv/dist/2020') as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    addFormats: formats.default,
  };
}

/**
 * Keywords only JSON Schema 2019-09 and 2020-12 have. A schema without `$schema` that uses one is
 * read in 2020-12 (the dialect MCP takes for a schema that names none), as the SDK renders it;
 * read in draft-07 its `items: false` beside `prefixItems` refused every array the SDK's tuple type
 * allowed.
 */
const NEWER_KEYWORDS = new Set([
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'dependentSchemas',
  '$dynamicRef',
  '$dynamicAnchor',
]);

/** True when `schema` uses a {@link NEWER_KEYWORDS} keyword anywhere (a bounded walk). */
function usesNewerKeywords(schema: JsonSchema): boolean {
  const stack: unknown[] = [schema];
  const seen = new Set<unknown>();
  for (let n = 0; stack.length > 0 && n < 100_000; n++) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    for (const [key, value] of Object.entries(node)) {
      if (!Array.isArray(node) && NEWER_KEYWORDS.has(key)) return true;
      stack.push(value);
    }
  }
  return false;
}

function ajvFor(schema: JsonSchema): Ajv | Ajv2020 {
  const dialect =
    typeof schema.$schema === 'string'
      ? schema.$schema
      : usesNewerKeywords(schema)
        ? '2020-12'
        : '';
  // `optimize: false`: ajv's pass over the generated code halves a schema's compile (~0.6 → ~0.3 ms;
  // 1,000 tools' schemas took 0.7 s of a runtime's start) for ~0.1 µs more per validation (034 §11).
  const options = {
    strict: false,
    allErrors: true,
    validateSchema: false,
    addUsedSchema: false,
    code: { optimize: false },
  } as const;
  if (dialect.includes('2020-12') || dialect.includes('2019-09')) {
    if (!ajv2020) {
      const { Ajv2020, addFormats } = ajvModules();
      ajv2020 = new Ajv2020(options);
      addFormats(ajv2020);
    }
    return ajv2020;
  }
  if (!ajv07) {
    const { Ajv, addFormats } = ajvModules();
    ajv07 = new Ajv(options);
    addFormats(ajv07);
  }
  return ajv07;
}

function isZodSchema(schema: SchemaLike): schema is z.ZodType {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    '_zod' in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === 'function'
  );
}

/** The issues of a failed zod parse, with `$`-rooted paths. */
export function zodIssues(error: z.ZodError): ValidationIssue[] {
  return boundIssues(error.issues.map((i) => ({ path: pathOf(i.path), message: i.message })));
}

function pathOf(segments: readonly PropertyKey[]): string {
  let out = '$';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : `.${String(s)}`;
  return out;
}

function ajvIssue(e: ErrorObject): ValidationIssue {
  const segments = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = pathOf(segments.map((s) => (/^\d+$/.test(s) ? Number(s) : s)));
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required' && typeof params.missingProperty === 'string')
    path = `${path}.${params.missingProperty}`;
  if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { path: `${path}.${params.additionalProperty}`, message: 'unknown property' };
  }
  return { path, message: e.message ?? e.keyword };
}

/**
 * Compiles a schema. `io` selects zod's input or output view when exporting to JSON Schema.
 * @throws IsocodeError INVALID_TOOL_DEFINITION when the schema is neither zod nor a valid JSON Schema.
 */
export function compileSchema(
  schema: SchemaLike,
  io: 'input' | 'output',
  where: string,
): CompiledSchema {
  if (isZodSchema(schema)) {
    let jsonSchema: JsonSchema;
    try {
      jsonSchema = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
    } catch (cause) {
      throw new IsocodeError(
        'INVALID_TOOL_DEFINITION',
        `${where}: the zod schema cannot be exported to JSON Schema`,
        { cause },
      );
    }
    return {
      jsonSchema,
      validate(value) {
        const r = schema.safeParse(value);
        if (r.success) return { ok: true, value: r.data };
        return { ok: false, issues: zodIssues(r.error) };
      },
    };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `${where}: expected a zod schema or a JSON Schema object`,
    );
  }
  const ahead = compiledAhead.get(schema);
  if (ahead !== undefined) return ahead;
  try {
    return compileJsonSchema(schema);
  } catch (cause) {
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `${where}: invalid JSON Schema: ${messageOf(cause)}`,
      { cause },
    );
  }
}

/**
 * A JSON Schema's validator. @throws what ajv throws for a schema it cannot compile, and for one
 * whose references go round without end for some kind of value (`A: anyOf [B, string]`,
 * `B: anyOf [A, number]` never ends for an object): one value of each JSON type is checked once
 * here, so such a schema is refused when it is defined, not on every call.
 */
function compileJsonSchema(schema: JsonSchema): CompiledSchema {
  const check: ValidateFunction = ajvFor(schema).compile(schema);
  for (const probe of PROBES)
    if (overflows(() => check(probe)))
      throw new Error(
        `its references go round without end: checking ${JSON.stringify(probe)} never finishes`,
      );
  return {
    jsonSchema: schema,
    validate(value) {
      let valid = false;
      if (overflows(() => (valid = check(value))))
        return { ok: false, issues: [{ path: '', message: TOO_DEEP }] };
      if (valid) return { ok: true, value };
      return { ok: false, issues: boundIssues((check.errors ?? []).map(ajvIssue)) };
    },
  };
}

/** One value of each JSON type. */
const PROBES: readonly unknown[] = [null, true, 0, '', [], {}];
const TOO_DEEP = 'the value could not be checked: the schema recursed too deep for it';

/** True when `fn` ran out of stack (anything else it throws is thrown on). */
function overflows(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch (error) {
    if (error instanceof RangeError) return true;
    throw error;
  }
}

const messageOf = (cause: unknown): string => thrownText(cause);

/** Schemas {@link compileAhead} compiled: deep-frozen copies no one else holds, so never stale. */
const compiledAhead = new WeakMap<object, CompiledSchema>();

/** How much of the validator's complaint a left-out tool's reason keeps (it quotes upstream text). */
const AHEAD_REASON_CHARS = 300;

/**
 * The deepest nesting of objects and arrays an upstream's tool may have: the depth any JSON crossing
 * a trust boundary may have. Past it, the recursive readers of a tool (`JSON.stringify`, ajv, the
 * wire and SDK renderers) could run out of stack; a real schema nests a few dozen levels at most.
 */
export const AHEAD_MAX_DEPTH = MAX_JSON_DEPTH;

/**
 * The most objects and arrays an upstream's schema may hold. An object reached twice counts twice,
 * as `JSON.stringify` would write it twice: an in-process upstream can hand over a graph that shares
 * its parts, whose written form doubles with every level.
 */
export const AHEAD_MAX_NODES = 100_000;

/**
 * Why a value an upstream sent is too big to read (objects and arrays nested deeper than
 * {@link AHEAD_MAX_DEPTH}, or more of them than {@link AHEAD_MAX_NODES}), or undefined. An explicit
 * stack: no recursion, and it stops as soon as a limit is passed, cycles included.
 */
export function upstreamTooBig(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: [object, number][] = [[value, 0]];
  let nodes = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (depth >= AHEAD_MAX_DEPTH) return `nests objects and arrays deeper than ${AHEAD_MAX_DEPTH}`;
    if (++nodes > AHEAD_MAX_NODES) return `holds more than ${AHEAD_MAX_NODES} objects and arrays`;
    for (const child of Object.values(node) as unknown[])
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * Compiles a JSON Schema a source received from an upstream (an MCP server's tool list) before the
 * tool is registered, so that a source leaves out the one tool whose schema cannot be compiled (a
 * pattern in another regex dialect, a reference to nowhere, nesting past the stack) instead of
 * failing every tool it offers. Returns a deep-frozen JSON copy, whose registration reuses this
 * compile, or why it cannot be used.
 */
export function compileAhead(
  schema: unknown,
  io: 'input' | 'output',
): { ok: true; schema: JsonSchema } | { ok: false; reason: string } {
  const refuse = (why: string): { ok: false; reason: string } => ({
    ok: false,
    reason: clipText(`${io} schema ${why}`, AHEAD_REASON_CHARS),
  });
  const big = upstreamTooBig(schema);
  if (big !== undefined) return refuse(big);
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(schema)) as unknown;
  } catch (cause) {
    return refuse(`is not JSON: ${messageOf(cause)}`);
  }
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy))
    return refuse('is not a JSON Schema object');
  try {
    const frozen = deepFreeze(copy as JsonSchema);
    compiledAhead.set(frozen, compileJsonSchema(frozen));
    return { ok: true, schema: frozen };
  } catch (cause) {
    return refuse(`cannot be compiled: ${messageOf(cause)}`);
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value))
    if (typeof child === 'object' && child !== null) deepFreeze(child as object);
  return Object.freeze(value);
}
