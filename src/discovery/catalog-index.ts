/**
 * The searchable index of a scope's SDK: each tool's binding expression and one-line summary,
 * keyword search over names and descriptions, and the declarations of a few named tools.
 * Pure functions over a catalog and its rendered SDK; {@link ScopeDiscovery} caches them.
 */
import { bindingExpression, type SdkBinding } from '../sdk/bindings.js';
import { renderSdk } from '../sdk/index.js';
import { cutText } from '../text/clip.js';
import type { ToolSchema } from '../tools/types.js';

/** A tool as discovery shows it. */
export interface ToolMatch {
  /** The tool's name (`fs.read_file`). */
  name: string;
  /** How a program calls it (`tools.fs.read_file`, `tools["get-user"]`). */
  binding: string;
  /** The first line of its description, at most 100 characters. */
  summary: string;
}

/** The answer of a search. */
export interface SearchToolsResult {
  query: string;
  /** Tools in the scope. */
  total: number;
  /** Tools that matched the query (before `limit`). */
  matched: number;
  /** The best matches, best first, at most `limit`. */
  tools: ToolMatch[];
}

/** The answer of a describe. */
export interface DescribeToolsResult {
  /** The tools found, in the order asked. */
  tools: ToolMatch[];
  /** Names asked for that are not tools of the scope. */
  missing: string[];
  /** Their TypeScript declarations (the SDK without its shared prelude). */
  declarations: string;
}

/** One indexed tool. */
export interface IndexedTool extends ToolMatch {
  /** The catalog entry the SDK was rendered from. */
  schema: ToolSchema;
  nameWords: string[];
  descriptionWords: string[];
}

const SUMMARY_CHARS = 100;

function summary(description: string): string {
  const first = description.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const line = first.trim();
  return line.length > SUMMARY_CHARS ? `${cutText(line, SUMMARY_CHARS - 1).trimEnd()}…` : line;
}

/** Lower-case alphanumeric words of a text. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** The catalog's tools with their bindings, in SDK order (tools without a binding are left out). */
export function indexCatalog(
  catalog: readonly ToolSchema[],
  bindings: readonly SdkBinding[],
): IndexedTool[] {
  const byName = new Map(catalog.map((s) => [s.name, s]));
  const out: IndexedTool[] = [];
  for (const b of bindings) {
    const schema = byName.get(b.tool);
    if (!schema) continue;
    out.push({
      name: schema.name,
      binding: bindingExpression(b.path),
      summary: summary(schema.description),
      schema,
      nameWords: words(schema.name),
      descriptionWords: words(schema.description),
    });
  }
  return out;
}

function score(tool: IndexedTool, terms: readonly string[]): number {
  const name = tool.nameWords;
  const desc = tool.descriptionWords;
  let total = 0;
  for (const term of terms) {
    if (name.includes(term)) total += 5;
    else if (name.some((w) => w.startsWith(term) || term.startsWith(w))) total += 3;
    if (desc.includes(term)) total += 1;
    else if (desc.some((w) => w.startsWith(term))) total += 0.5;
  }
  return total;
}

const match = (t: IndexedTool): ToolMatch => ({
  name: t.name,
  binding: t.binding,
  summary: t.summary,
});

/**
 * Ranks tools by keyword overlap with `query` (a name word counts most, then a description word;
 * prefixes count less). An empty query matches every tool, in SDK order.
 */
export function searchIndex(
  index: readonly IndexedTool[],
  query: string,
  limit: number,
): SearchToolsResult {
  const terms = words(query);
  const ranked = index
    .map((t, i) => ({ t, i, s: score(t, terms) }))
    .filter((r) => terms.length === 0 || r.s > 0)
    .sort((x, y) => y.s - x.s || x.i - y.i);
  return {
    query,
    total: index.length,
    matched: ranked.length,
    tools: ranked.slice(0, limit).map((r) => match(r.t)),
  };
}

/** Where the generated part of a rendered SDK starts: the JSDoc block above `interface Tools`. */
function toolsStart(text: string): number {
  const at = text.search(/^interface Tools\b/m);
  if (at < 0) return 0;
  const before = text.slice(0, at).trimEnd();
  return before.endsWith('*/') ? Math.max(0, before.lastIndexOf('/**')) : at;
}

/**
 * The declarations of the named tools (by name or binding expression), rendered with the same
 * rules as the full SDK, without the shared prelude every program already has.
 */
export function describeIndex(
  index: readonly IndexedTool[],
  names: readonly string[],
): DescribeToolsResult {
  const found: IndexedTool[] = [];
  const missing: string[] = [];
  for (const n of names) {
    const hit = index.find((t) => t.name === n || t.binding === n);
    if (!hit) missing.push(n);
    else if (!found.includes(hit)) found.push(hit);
  }
  if (found.length === 0) return { tools: [], missing, declarations: '' };
  const sub = renderSdk(found.map((t) => t.schema)).text;
  const declarations = [
    `// Bindings: ${found.map((t) => t.binding).join(', ')}`,
    sub.slice(toolsStart(sub)).trimStart(),
  ].join('\n');
  return { tools: found.map(match), missing, declarations };
}
