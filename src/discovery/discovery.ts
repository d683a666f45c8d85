/**
 * Discovery for large catalogs: the one owner of the compact mode that the library, the HTTP
 * service and the MCP face share. When a scope's run_code description (instructions plus the full
 * SDK) is larger than a measured token threshold, the model is shown a compact index instead, and
 * two read-only helpers, `search_tools` and `describe_tool`, answer from the scope's own SDK.
 * Programs are still type-checked against the full SDK. Decision record 019.
 */
import { IsocodeError } from '../errors.js';
import type { RenderedSdk } from '../sdk/index.js';
import { countTokens } from '../tokens.js';
import type { JsonSchema, ToolSchema } from '../tools/types.js';
import {
  describeIndex,
  indexCatalog,
  searchIndex,
  type DescribeToolsResult,
  type IndexedTool,
  type SearchToolsResult,
} from './catalog-index.js';
import { integerOptionOr } from '../options.js';

/** Name of the helper that searches the scope's tools. */
export const SEARCH_TOOLS = 'search_tools';
/** Name of the helper that prints the TypeScript declarations of tools. */
export const DESCRIBE_TOOL = 'describe_tool';

/** When the compact mode is used: `auto` above the threshold, or always, or never. */
export type DiscoveryMode = 'auto' | 'always' | 'never';

/** Options of discovery (`codeMode.discovery`). */
export interface DiscoveryOptions {
  /** `auto`: compact when run_code's full description exceeds `thresholdTokens`. @default "auto" */
  mode?: DiscoveryMode | undefined;
  /**
   * The `auto` threshold, in o200k tokens of run_code's full description (instructions and SDK).
   * @default 16000
   */
  thresholdTokens?: number | undefined;
}

/** Whether a scope is in compact mode, and the figures behind the decision. */
export interface DiscoveryStatus {
  /** True when the model is shown the compact index and the two helpers. */
  compact: boolean;
  mode: DiscoveryMode;
  thresholdTokens: number;
  /** o200k tokens of run_code's full description (instructions and SDK). */
  fullTokens: number;
  /** Tools reachable from programs in the scope. */
  tools: number;
}

/** The default `auto` threshold, in tokens (decision record 019: ~64,000 characters of SDK). */
export const DEFAULT_DISCOVERY_THRESHOLD_TOKENS = 16_000;

const MAX_QUERY_CHARS = 200;
const MAX_NAME_CHARS = 200;
const MAX_DESCRIBE = 20;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;
const CACHE_ENTRIES = 64;

/** What discovery reads of the runtime. */
export interface DiscoverySource {
  /** The catalog the scope's SDK is rendered from. */
  catalog(scope: string): ToolSchema[];
  sdk(scope: string): RenderedSdk;
  /** run_code's full description in the scope (base, instructions and SDK). */
  fullDescription(scope: string): string;
  /** run_code's own description and the instructions (the compact description starts with them). */
  parts(scope: string): { base: string; instructions: string };
}

/** Validates discovery options. @throws IsocodeError INVALID_CONFIG */
export function resolveDiscoveryOptions(options: DiscoveryOptions = {}): Required<{
  [K in keyof DiscoveryOptions]-?: NonNullable<DiscoveryOptions[K]>;
}> {
  const mode = options.mode ?? 'auto';
  if (mode !== 'auto' && mode !== 'always' && mode !== 'never')
    throw new IsocodeError('INVALID_CONFIG', 'discovery.mode must be "auto", "always" or "never"');
  const thresholdTokens = integerOptionOr(
    'discovery.thresholdTokens',
    options.thresholdTokens,
    DEFAULT_DISCOVERY_THRESHOLD_TOKENS,
    0,
  );
  return { mode, thresholdTokens };
}

/** A small map that forgets its oldest entry past a size. */
function remember<V>(cache: Map<string, V>, key: string, make: () => V): V {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const value = make();
  cache.set(key, value);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return value;
}

const own = (o: unknown, key: string): unknown =>
  typeof o === 'object' && o !== null && Object.hasOwn(o, key)
    ? (o as Record<string, unknown>)[key]
    : undefined;

/** The helpers' catalog entries, with the output schemas of their values. */
export function discoveryToolSchemas(): ToolSchema[] {
  const names: JsonSchema = {
    type: 'array',
    items: { type: 'string', maxLength: MAX_NAME_CHARS },
    minItems: 1,
    maxItems: MAX_DESCRIBE,
    description:
      'Tool names (`fs.read_file`) or bindings (`tools.fs.read_file`), as search_tools returns them.',
  };
  const match: JsonSchema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      binding: { type: 'string' },
      summary: { type: 'string' },
    },
    required: ['name', 'binding', 'summary'],
  };
  const str = { type: 'string' };
  const int = { type: 'integer' };
  return [
    {
      name: SEARCH_TOOLS,
      description:
        'Searches the tools reachable from run_code programs by keywords (matched against names and descriptions). Returns how many tools matched of how many exist, and the best matches with their SDK binding and a one-line summary.',
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            maxLength: MAX_QUERY_CHARS,
            description: 'Keywords, for example "read file".',
          },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_LIMIT,
            description: `Most results. Default ${DEFAULT_LIMIT}.`,
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          query: str,
          total: int,
          matched: int,
          tools: { type: 'array', items: match },
        },
        required: ['query', 'total', 'matched', 'tools'],
      },
    },
    {
      name: DESCRIBE_TOOL,
      description:
        'Prints the TypeScript declarations (the run_code SDK) of the named tools: the exact argument and result types a program is checked against.',
      inputSchema: {
        type: 'object',
        properties: { names },
        required: ['names'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          tools: { type: 'array', items: match },
          missing: { type: 'array', items: str },
          declarations: str,
        },
        required: ['tools', 'missing', 'declarations'],
      },
    },
  ];
}

/** A helper call's answer: the value, and the text a model reads. */
export interface DiscoveryAnswer {
  value: SearchToolsResult | DescribeToolsResult;
  text: string;
}

/** The search text a model reads: the count line, then one line per match. */
export function searchText(r: SearchToolsResult): string {
  const head =
    r.matched === 0
      ? `No tool matches "${r.query}" (${r.total} tools exist).`
      : `${r.matched} of ${r.total} tools match "${r.query}"${r.tools.length < r.matched ? `; the best ${r.tools.length}` : ''}:`;
  return [
    head,
    ...r.tools.map((t) => `${t.binding} (${t.name})${t.summary === '' ? '' : ` — ${t.summary}`}`),
  ].join('\n');
}

/** Discovery over a runtime's scopes: the decision, the index, search and describe, all cached per SDK. */
export class ScopeDiscovery {
  readonly #source: DiscoverySource;
  readonly #options: { mode: DiscoveryMode; thresholdTokens: number };
  readonly #tokens = new Map<string, number>();
  readonly #indexes = new Map<string, IndexedTool[]>();
  readonly #compact = new Map<string, string>();

  constructor(source: DiscoverySource, options: DiscoveryOptions = {}) {
    this.#source = source;
    this.#options = resolveDiscoveryOptions(options);
  }

  #index(scope: string): IndexedTool[] {
    const sdk = this.#source.sdk(scope);
    return remember(this.#indexes, sdk.hash, () =>
      indexCatalog(this.#source.catalog(scope), sdk.bindings),
    );
  }

  /**
   * Whether `scope` is in compact mode (`override` replaces the runtime's options, for a face with
   * its own setting). The full description is tokenized once per SDK text.
   */
  status(scope: string, override: DiscoveryOptions = {}): DiscoveryStatus {
    const { mode, thresholdTokens } = resolveDiscoveryOptions({ ...this.#options, ...override });
    const sdk = this.#source.sdk(scope);
    const fullTokens = remember(this.#tokens, `${scope}\u0000${sdk.hash}`, () =>
      countTokens(this.#source.fullDescription(scope)),
    );
    const compact = mode === 'always' || (mode === 'auto' && fullTokens > thresholdTokens);
    return { compact, mode, thresholdTokens, fullTokens, tools: sdk.bindings.length };
  }

  /**
   * The catalog figures of the savings ledger: tokens of run_code's description as the model is
   * shown it (compact or full), of the SDK text, and of the same catalog as JSON wire (name,
   * description, input and output schemas). Tokenized once per SDK text.
   */
  catalogTokens(scope: string): { shownTokens: number; sdkTokens: number; wireTokens: number } {
    const sdk = this.#source.sdk(scope);
    const status = this.status(scope);
    const key = `${scope}\u0000${sdk.hash}`;
    const shownTokens = status.compact
      ? remember(this.#tokens, `compact\u0000${key}`, () =>
          countTokens(this.compactDescription(scope)),
        )
      : status.fullTokens;
    const sdkTokens = remember(this.#tokens, `sdk\u0000${sdk.hash}`, () => countTokens(sdk.text));
    const wireTokens = remember(this.#tokens, `wire\u0000${key}`, () =>
      countTokens(
        JSON.stringify(
          this.#source.catalog(scope).map((t) => ({
            name: t.name,
            description: t.description,
            inputSchema: t.inputSchema,
            ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
          })),
        ),
      ),
    );
    return { shownTokens, sdkTokens, wireTokens };
  }

  /**
   * run_code's compact description: its own description (unless `withBase` is false: the prompt
   * section) and the instructions, then how to discover, then one line per tool (binding and summary).
   */
  compactDescription(scope: string, withBase = true): string {
    const sdk = this.#source.sdk(scope);
    return remember(this.#compact, `${scope}\u0000${withBase}\u0000${sdk.hash}`, () => {
      const { base, instructions } = this.#source.parts(scope);
      const tools = this.#index(scope);
      const b = withBase ? base.trim() : '';
      return [
        ...(b === '' ? [] : [b, '']),
        instructions.trimEnd(),
        '',
        `This scope has ${tools.length} tools. Their TypeScript SDK is too large to list here, but every program is type-checked against it.`,
        `Before writing a program, call \`${SEARCH_TOOLS}\` to find tools by keyword and \`${DESCRIBE_TOOL}\` to read their exact TypeScript declarations (argument and result types).`,
        '',
        'Tool index:',
        ...tools.map((t) => `- ${t.binding}${t.summary === '' ? '' : ` — ${t.summary}`}`),
        '',
      ].join('\n');
    });
  }

  /** Searches the scope's tools. @throws IsocodeError INVALID_ARGS for a bad query or limit. */
  search(scope: string, query: unknown, limit?: unknown): SearchToolsResult {
    if (typeof query !== 'string' || query.length > MAX_QUERY_CHARS)
      throw new IsocodeError(
        'INVALID_ARGS',
        `query must be a string of at most ${MAX_QUERY_CHARS} characters`,
      );
    if (
      limit !== undefined &&
      (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    )
      throw new IsocodeError('INVALID_ARGS', `limit must be an integer from 1 to ${MAX_LIMIT}`);
    return searchIndex(this.#index(scope), query, limit ?? DEFAULT_LIMIT);
  }

  /**
   * The declarations of the named tools.
   * @throws IsocodeError INVALID_ARGS for a bad list; UNKNOWN_TOOL when none of them exists.
   */
  describe(scope: string, names: unknown): DescribeToolsResult {
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      names.length > MAX_DESCRIBE ||
      !names.every((n): n is string => typeof n === 'string' && n.length <= MAX_NAME_CHARS)
    )
      throw new IsocodeError('INVALID_ARGS', `names must be 1 to ${MAX_DESCRIBE} tool names`);
    const r = describeIndex(this.#index(scope), names);
    if (r.tools.length === 0)
      throw new IsocodeError(
        'UNKNOWN_TOOL',
        `no such tool: ${r.missing.join(', ')} (use ${SEARCH_TOOLS})`,
        { details: { missing: r.missing } },
      );
    return r;
  }

  /**
   * Answers a helper call made as a tool call (`{ query, limit? }` or `{ names }`).
   * @throws IsocodeError INVALID_ARGS or UNKNOWN_TOOL.
   */
  call(
    scope: string,
    name: typeof SEARCH_TOOLS | typeof DESCRIBE_TOOL,
    args: unknown,
  ): DiscoveryAnswer {
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new IsocodeError('INVALID_ARGS', 'arguments must be an object');
    if (name === SEARCH_TOOLS) {
      const value = this.search(scope, own(args, 'query'), own(args, 'limit'));
      return { value, text: searchText(value) };
    }
    const value = this.describe(scope, own(args, 'names'));
    const missing = value.missing.length > 0 ? `\n// Not found: ${value.missing.join(', ')}` : '';
    return { value, text: `${value.declarations}${missing}` };
  }
}
