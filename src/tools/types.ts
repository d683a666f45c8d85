/** The shapes of tools: what a tool author writes and what catalogs carry. */
import type { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { JsonValue } from '../json.js';

/** A JSON Schema document (draft 2020-12 or draft-07, as real tools publish them). */
export type JsonSchema = { [key: string]: unknown };

/** A schema for a tool's input or output: a zod 4 schema or a plain JSON Schema object. */
export type SchemaLike = z.ZodType | JsonSchema;

/** How a scope presents tools to a model. `native` is the default. */
export type PresentationMode = 'native' | 'code' | 'both';

/** A block of model-facing content, in the MCP content shape. */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string } };

/** What a tool body receives besides its validated arguments. */
export interface ToolContext {
  /** Aborted when the caller aborts, the call times out, or the parent run settles. */
  readonly signal: AbortSignal;
  /** This call's id. */
  readonly callId: string;
  /** The id of the execution that dispatched this call (a `run_code` run), if nested. */
  readonly parentId: string | undefined;
  /** The scope the call runs in. */
  readonly scope: string;
}

declare const brand: unique symbol;
/** An opaque, unguessable capability string the executor mints for one live transport execution. */
export type ParentToken = string & { readonly [brand]: 'ParentToken' };

/**
 * What a transport's body (run_code) receives: the usual context and the parent token that its
 * nested calls must carry. The executor builds it when name resolution says "transport".
 */
export interface TransportContext extends ToolContext {
  /** The capability of this execution's nested calls. Expires when the execution settles. */
  readonly parentToken: ParentToken;
}

/** A function type whose parameters are checked bivariantly, so typed tools fit `ToolDefinition[]`. */
export type Bivariant<F extends (...args: never[]) => unknown> = {
  bivarianceHack(...args: Parameters<F>): ReturnType<F>;
}['bivarianceHack'];

/**
 * A tool definition. `defineTool` is a typed helper; a plain object of this shape is accepted
 * wherever a tool is.
 */
export interface ToolDefinition<
  Args = unknown,
  Result = unknown,
  Ctx extends ToolContext = ToolContext,
> {
  /** Letters, digits, `_`, `-` and `.`; 1–64 characters; `run_code` is reserved. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The input schema (zod 4 or JSON Schema). Arguments are validated before the body runs. */
  input: SchemaLike;
  /** The output schema; the body's value is checked against it (INVALID_TOOL_OUTPUT). */
  output?: SchemaLike | undefined;
  /** The body. Its value must be JSON. */
  execute(args: Args, ctx: Ctx): Result | Promise<Result>;
  /**
   * Whether a call with these arguments may overlap other concurrency-safe calls of the same
   * run_code program.
   * @default false
   */
  isConcurrencySafe?: boolean | Bivariant<(args: Args) => boolean> | undefined;
  /**
   * Running a call twice with the same arguments has the same effect as running it once. A
   * durable run that lost its replica while this tool's body ran re-runs the call on recovery;
   * for any other tool the run becomes `interrupted` instead (shown in the catalog as
   * `annotations.idempotentHint`, as MCP does).
   * @default false
   */
  idempotent?: boolean | undefined;
  /** Per-call time limit in milliseconds; exceeding it gives TOOL_TIMEOUT. @default the runtime's `defaultTimeoutMs` */
  timeoutMs?: number | undefined;
  /** Turns the value into model-facing content. @default pretty-printed JSON text */
  render?: Bivariant<(value: Result) => string | ContentBlock[]> | undefined;
  /** Rewrites the final content of every outcome of this tool (success or failure), exactly once. */
  finalizeContent?:
    ((content: ContentBlock[], outcome: OutcomeSummary) => ContentBlock[]) | undefined;
}

/** The summary of an outcome given to content finalizers. */
export interface OutcomeSummary {
  ok: boolean;
  code: ErrorCode | undefined;
  toolName: string;
}

/** One entry of a tool catalog, in the MCP `tools/list` shape. What the SDK generator consumes. */
export interface ToolSchema {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema | undefined;
  /** Present when the tool declares `idempotent: true`. */
  annotations?: { idempotentHint?: boolean | undefined } | undefined;
}

/** A JSON value (re-exported for tool authors). */
export type { JsonValue };
