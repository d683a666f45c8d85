/**
 * Tools of an OpenAPI 3.0/3.1 service: one per operation, named `<name>.<operationId>` (the name
 * rules of mcp-names.ts), each call an HTTP request through the source's base URL and headers.
 * See docs/decisions/036-openapi-source.md.
 */
import { fileURLToPath } from 'node:url';
import { IsocodeError } from '../index.js';
import type { ToolContext, ToolDefinition } from '../index.js';
import { SOURCE_NAME_RE } from './config-schema.js';
import { assignLocalNames } from './mcp-names.js';
import { callOperation, type CallSettings } from './openapi-call.js';
import { loadSpec, type LoadedSpec } from './openapi-load.js';
import { operationsOf, type SkippedOperation } from './openapi-operations.js';
import { isRec } from './openapi-schema.js';

/** Default most bytes of a response body (1 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;
/** Default most bytes of each spec document (16 MiB). */
const DEFAULT_MAX_SPEC_BYTES = 16 * 1_048_576;

/** Options of {@link openApiTools}. */
export interface OpenApiToolsOptions {
  /** The namespace: tools are named `<name>.<operationId>`. A letter, then letters, digits, `_` or `-`; at most 32. */
  name: string;
  /** The OpenAPI document (JSON): a path (relative to the working directory), a `file:` URL or an `http(s):` URL. */
  spec: string;
  /** The URL operation paths are appended to. @default the document's `servers[0].url` (variables at their defaults) */
  baseUrl?: string | undefined;
  /** Headers of every request (authentication, for example); they win over header parameters. @default {} */
  headers?: Record<string, string> | undefined;
  /** `timeoutMs` of every tool of this source (the executor aborts the request). @default unset (the runtime's default) */
  timeoutMs?: number | undefined;
  /** Most bytes of a response body; a larger one fails the call with LIMIT_EXCEEDED. @default 1048576 */
  maxResponseBytes?: number | undefined;
  /** Only these operations (by operationId, or `<method>_<path>` for one without) become tools. @default all */
  operations?: readonly string[] | undefined;
  /** Time for reading and resolving the document, in milliseconds. @default 30000 */
  loadTimeoutMs?: number | undefined;
}

/** A source's status. */
export interface OpenApiSourceStatus {
  kind: 'openapi';
  name: string;
  /** Where the document was read (a path or a URL). */
  spec: string;
  /** The base URL of every request. */
  baseUrl: string;
  toolCount: number;
  /** Operations left out, with why. */
  skippedOperations: SkippedOperation[];
}

/** The tools of an OpenAPI document. */
export interface OpenApiSource {
  readonly name: string;
  readonly tools: ToolDefinition[];
  /** Local tool name → operationId (or `<method>_<path>`). */
  readonly operations: ReadonlyMap<string, string>;
  status(): OpenApiSourceStatus;
}

const invalid = (message: string): IsocodeError => new IsocodeError('INVALID_CONFIG', message);

/** `servers[0].url` with its variables at their defaults, resolved against where the document came from. */
function baseUrlOf(spec: LoadedSpec, given: string | undefined): URL {
  let url = given;
  if (url === undefined) {
    const servers = spec.document.servers;
    const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
    if (!isRec(first) || typeof first.url !== 'string')
      throw invalid('the document has no servers[0].url: give "baseUrl"');
    const vars = isRec(first.variables) ? first.variables : {};
    url = first.url.replace(/\{([^}]*)\}/g, (m, v: string) => {
      const d = Object.hasOwn(vars, v) ? vars[v] : undefined;
      return isRec(d) && typeof d.default === 'string' ? d.default : m;
    });
    if (!/^https?:\/\//i.test(url) && spec.location.protocol === 'file:')
      throw invalid(`servers[0].url ${JSON.stringify(url)} is relative to a file: give "baseUrl"`);
  }
  const resolved = URL.canParse(url, spec.location.href) ? new URL(url, spec.location) : undefined;
  if (resolved === undefined || !/^https?:$/.test(resolved.protocol))
    throw invalid(`base URL ${JSON.stringify(url)} is not an http: or https: URL`);
  // Requests never carried them, and the status would show them: credentials go in "headers".
  if (resolved.username !== '' || resolved.password !== '')
    throw invalid(
      `base URL ${resolved.origin}${resolved.pathname} has credentials in it: give them in "headers" (an Authorization header)`,
    );
  resolved.search = '';
  resolved.hash = '';
  return resolved;
}

/** Configured headers that HTTP can send, refused at load without quoting a value (it may be a secret). */
function checkHeaders(headers: Record<string, string>): void {
  for (const [header, value] of Object.entries(headers)) {
    try {
      new Headers().set(header, value);
    } catch {
      throw invalid(
        `header ${JSON.stringify(header)}: its name or value cannot be sent over HTTP (a line break or another character HTTP refuses)`,
      );
    }
  }
}

function argsOf(args: unknown, local: string): Record<string, unknown> {
  if (args === undefined || args === null) return {};
  if (isRec(args)) return args;
  throw new IsocodeError('INVALID_ARGS', `tool "${local}" takes an object of arguments`);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Reads an OpenAPI 3.0 or 3.1 document (JSON; `$ref`s resolved, external ones included) and makes
 * one tool per operation. GET, HEAD and OPTIONS calls may overlap in a program; GET, HEAD, OPTIONS,
 * PUT and DELETE are idempotent (RFC 9110).
 * @throws IsocodeError INVALID_CONFIG for a bad name, an unreadable or invalid document, a missing
 *   base URL, or an `operations` entry that names no operation.
 */
export async function openApiTools(options: OpenApiToolsOptions): Promise<OpenApiSource> {
  const { name } = options;
  if (!SOURCE_NAME_RE.test(name))
    throw invalid(
      `invalid OpenAPI source name "${name}": expected a letter, then letters, digits, "_" or "-" (at most 32)`,
    );
  const spec = await loadSpec(options.spec, {
    maxBytes: DEFAULT_MAX_SPEC_BYTES,
    timeoutMs: options.loadTimeoutMs ?? 30_000,
  });
  const baseUrl = baseUrlOf(spec, options.baseUrl);
  checkHeaders(options.headers ?? {});
  const { operations: all, skipped } = operationsOf(spec.document, spec.v30);
  const wanted = options.operations === undefined ? undefined : new Set(options.operations);
  if (wanted) {
    const known = new Set([...all.map((o) => o.id), ...skipped.map((s) => s.operation)]);
    const unknown = [...wanted].filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw invalid(
        `"operations" names no operation of the document: ${unknown.map((u) => JSON.stringify(u)).join(', ')}`,
      );
  }
  const chosen = wanted ? all.filter((o) => wanted.has(o.id)) : all;
  const settings: CallSettings = {
    source: name,
    baseUrl,
    headers: { ...options.headers },
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
  const local = assignLocalNames(
    name,
    chosen.map((o) => o.id),
  );
  const operations = new Map<string, string>();
  const tools = chosen.map((op): ToolDefinition => {
    const localName = local.get(op.id) ?? `${name}.${op.id}`;
    operations.set(localName, op.id);
    return {
      name: localName,
      description: op.deprecated ? `Deprecated. ${op.description}` : op.description,
      input: op.input,
      ...(op.output === undefined ? {} : { output: op.output }),
      isConcurrencySafe: SAFE_METHODS.has(op.method),
      idempotent: IDEMPOTENT_METHODS.has(op.method),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      execute: (args: unknown, ctx: ToolContext) =>
        callOperation(op, argsOf(args, localName), settings, ctx.signal),
    };
  });
  const where =
    spec.location.protocol === 'file:' ? fileURLToPath(spec.location) : spec.location.href;
  const skippedOperations = wanted ? skipped.filter((s) => wanted.has(s.operation)) : skipped;
  return {
    name,
    tools,
    operations,
    status: () => ({
      kind: 'openapi',
      name,
      spec: where,
      baseUrl: baseUrl.href,
      toolCount: tools.length,
      skippedOperations,
    }),
  };
}
