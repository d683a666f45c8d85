/**
 * Discovery helpers for large catalogs under `code` mode: `search_tools` and `describe_tool`, and
 * the compact `run_code` description that replaces the full SDK when it is too large to list.
 * See docs/decisions/008-mcp-face.md for the measured sizes behind the threshold.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Runtime, ToolSchema } from '../index.js';
import { bindingExpression } from '../sdk/bindings.js';
import { renderSdk } from '../sdk/index.js';

/** Name of the helper that searches the scope's tools. */
export const SEARCH_TOOLS = 'search_tools';
/** Name of the helper that prints the TypeScript declarations of tools. */
export const DESCRIBE_TOOL = 'describe_tool';

/** When the discovery helpers are listed. */
export type HelperMode = 'auto' | 'always' | 'never';

/** Above this many characters of `run_code` description, `auto` switches to the helpers. */
export const DEFAULT_HELPER_THRESHOLD_CHARS = 64_000;

/** Where the generated part of an SDK starts (after the prelude). */
const TOOLS_DOC = 'The tools this program can call.';
const SUMMARY_CHARS = 100;
const MAX_QUERY_CHARS = 200;
const MAX_DESCRIBE = 20;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;

/** run_code's description in parts, as the runtime gives them. */
type RunCodeDescription = NonNullable<ReturnType<Runtime['runCodeDescription']>>;

/** A tool as the helpers see it: its binding expression and catalog entry. */
interface IndexedTool {
  /** `tools.fs.read_file` or `tools["get-user"]`. */
  binding: string;
  schema: ToolSchema;
  summary: string;
}

function summary(description: string): string {
  const first = description.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const line = first.trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1).trimEnd()}…` : line;
}

/** The scope's tools with their bindings, in SDK order. */
function indexTools(runtime: Runtime, scope: string): IndexedTool[] {
  const byName = new Map(runtime.schemas(scope).map((s) => [s.name, s]));
  const out: IndexedTool[] = [];
  for (const b of runtime.sdk(scope).bindings) {
    const schema = byName.get(b.tool);
    if (schema)
      out.push({
        binding: bindingExpression(b.path),
        schema,
        summary: summary(schema.description),
      });
  }
  return out;
}

/**
 * The `run_code` description that lists an index of tools instead of the full SDK: run_code's own
 * description and the instructions (the runtime's parts), then the index.
 */
export function compactRunCodeDescription(
  runtime: Runtime,
  scope: string,
  parts: RunCodeDescription,
): string {
  const base = parts.base.trim();
  const { sdk } = parts;
  const tools = indexTools(runtime, scope);
  const index = tools.map((t) => `- ${t.binding}${t.summary === '' ? '' : ` — ${t.summary}`}`);
  return [
    ...(base === '' ? [] : [base, '']),
    parts.instructions.trimEnd(),
    '',
    `This scope has ${tools.length} tools. Their TypeScript SDK (${sdk.text.length} characters) is too large to list here, but every program is type-checked against it.`,
    `Before writing a program, call \`${SEARCH_TOOLS}\` to find tools by keyword and \`${DESCRIBE_TOOL}\` to read their exact TypeScript declarations (argument and result types).`,
    '',
    'Tool index:',
    ...index,
    '',
  ].join('\n');
}

/** The two helper tools, in the MCP `tools/list` shape. */
export function helperTools(): Tool[] {
  return [
    {
      name: SEARCH_TOOLS,
      description:
        'Searches the tools reachable from run_code programs by keywords (matched against names and descriptions). Returns the best matches with their SDK binding and a one-line summary.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Keywords, for example "read file".' },
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
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: DESCRIBE_TOOL,
      description:
        'Prints the TypeScript declarations (the run_code SDK) of the named tools: the exact argument and result types a program is checked against.',
      inputSchema: {
        type: 'object',
        properties: {
          names: {
            type: 'array',
            items: { type: 'string' },
            minItems: 1,
            maxItems: MAX_DESCRIBE,
            description:
              'Tool names (`fs.read_file`) or bindings (`tools.fs.read_file`), as search_tools returns them.',
          },
        },
        required: ['names'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ];
}

const error = (text: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text }],
});

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

function score(tool: IndexedTool, terms: readonly string[]): number {
  const name = words(tool.schema.name);
  const desc = words(tool.schema.description);
  let total = 0;
  for (const term of terms) {
    if (name.includes(term)) total += 5;
    else if (name.some((w) => w.startsWith(term) || term.startsWith(w))) total += 3;
    if (desc.includes(term)) total += 1;
    else if (desc.some((w) => w.startsWith(term))) total += 0.5;
  }
  return total;
}

/** `search_tools`: ranks the scope's tools by keyword overlap. */
export function searchTools(runtime: Runtime, scope: string, args: unknown): CallToolResult {
  const a = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const query = Object.hasOwn(a, 'query') ? a.query : undefined;
  const limitArg = Object.hasOwn(a, 'limit') ? a.limit : undefined;
  if (typeof query !== 'string' || query.length > MAX_QUERY_CHARS)
    return error(
      `Error INVALID_ARGS: query must be a string of at most ${MAX_QUERY_CHARS} characters`,
    );
  if (
    limitArg !== undefined &&
    (typeof limitArg !== 'number' ||
      !Number.isInteger(limitArg) ||
      limitArg < 1 ||
      limitArg > MAX_LIMIT)
  )
    return error(`Error INVALID_ARGS: limit must be an integer from 1 to ${MAX_LIMIT}`);
  const limit = limitArg ?? DEFAULT_LIMIT;
  const terms = words(query);
  const ranked = indexTools(runtime, scope)
    .map((t) => ({ t, s: score(t, terms) }))
    .filter((r) => terms.length === 0 || r.s > 0)
    .sort((x, y) => y.s - x.s)
    .slice(0, limit)
    .map(({ t }) => ({ name: t.schema.name, binding: t.binding, summary: t.summary }));
  const text =
    ranked.length === 0
      ? `No tool matches "${query}".`
      : ranked
          .map((r) => `${r.binding} (${r.name})${r.summary === '' ? '' : ` — ${r.summary}`}`)
          .join('\n');
  return { content: [{ type: 'text', text }], structuredContent: { tools: ranked } };
}

/** `describe_tool`: the SDK declarations of the named tools (prelude types are those of the full SDK). */
export function describeTools(runtime: Runtime, scope: string, args: unknown): CallToolResult {
  const a = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const names = Object.hasOwn(a, 'names') ? a.names : undefined;
  if (
    !Array.isArray(names) ||
    names.length === 0 ||
    names.length > MAX_DESCRIBE ||
    !names.every((n): n is string => typeof n === 'string' && n.length <= 200)
  )
    return error(`Error INVALID_ARGS: names must be 1 to ${MAX_DESCRIBE} tool names`);
  const tools = indexTools(runtime, scope);
  const found: ToolSchema[] = [];
  const missing: string[] = [];
  for (const n of names) {
    const hit = tools.find((t) => t.schema.name === n || t.binding === n);
    if (hit) {
      if (!found.includes(hit.schema)) found.push(hit.schema);
    } else missing.push(n);
  }
  if (found.length === 0)
    return error(`Error UNKNOWN_TOOL: no such tool: ${missing.join(', ')} (use ${SEARCH_TOOLS})`);
  // The subset renders with the same rules; drop the shared prelude, which every program already has.
  const sub = renderSdk(found).text;
  const cut = Math.max(0, sub.lastIndexOf('/**', sub.indexOf(TOOLS_DOC)));
  const text = [
    `// Bindings: ${found.map((t) => tools.find((x) => x.schema === t)?.binding ?? t.name).join(', ')}`,
    sub.slice(cut).trimStart(),
    ...(missing.length > 0 ? [`// Not found: ${missing.join(', ')}`] : []),
  ].join('\n');
  return { content: [{ type: 'text', text }] };
}
