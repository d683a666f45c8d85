/**
 * SDK size against the JSON wire it replaces, in o200k tokens ({@link countTokens}) and characters.
 * The wire is the catalog as an MCP `tools/list` answer sends it: `[{name, description, inputSchema,
 * outputSchema?}]` as compact JSON ({@link toMcpTools}).
 */
import { countTokens } from '../tokens.js';
import { toMcpTools } from '../tools/wire.js';
import type { ToolSchema } from '../tools/types.js';
import { type RenderedSdk, renderSdk } from './render.js';
import { readTemplate } from './templates.js';

/** A text's size. */
export interface TextSize {
  tokens: number;
  chars: number;
}

/** {@link sdkStats}'s figures. */
export interface SdkStats {
  /** Tools rendered. */
  tools: number;
  /** The whole SDK text (what a program is checked against and a model is shown). */
  sdk: TextSize;
  /** The fixed prelude at its start (the same for every catalog). */
  prelude: TextSize;
  /** The catalog's own part: the SDK after the prelude. */
  catalog: TextSize;
  /** The catalog as compact MCP `tools/list` JSON. */
  wire: TextSize;
  /** `sdk / wire` and `catalog / wire` (0 when the wire is empty). */
  ratio: { sdk: TextSize; catalog: TextSize };
}

const size = (text: string): TextSize => ({ tokens: countTokens(text), chars: text.length });
const div = (a: number, b: number): number => (b === 0 ? 0 : a / b);
const ratio = (a: TextSize, b: TextSize): TextSize => ({
  tokens: div(a.tokens, b.tokens),
  chars: div(a.chars, b.chars),
});

/**
 * The catalog's JSON wire text: `JSON.stringify(toMcpTools(catalog))`. Total: an entry that is not a
 * tool object, or that cannot be serialised (a cycle, a throwing getter), is left out.
 */
export function wireText(catalog: readonly ToolSchema[]): string {
  const parts: string[] = [];
  const list: readonly ToolSchema[] = Array.isArray(catalog) ? catalog : [];
  for (const t of list) {
    try {
      const ok =
        typeof t === 'object' &&
        t !== null &&
        typeof t.name === 'string' &&
        (t.outputSchema === undefined ||
          (typeof t.outputSchema === 'object' && t.outputSchema !== null));
      const text = ok ? JSON.stringify(toMcpTools([t])[0]) : undefined;
      if (typeof text === 'string') parts.push(text);
    } catch {
      // not serialisable: not part of any wire either
    }
  }
  return `[${parts.join(',')}]`;
}

/** The SDK's size against the catalog's JSON wire. `sdk` defaults to `renderSdk(catalog)`. */
export function sdkStats(catalog: readonly ToolSchema[], sdk?: RenderedSdk): SdkStats {
  const rendered = sdk ?? renderSdk(catalog);
  const preludeText = readTemplate('prelude.d.ts').replace(/\n*$/, '\n');
  const whole = size(rendered.text);
  const prelude = rendered.text.startsWith(preludeText)
    ? size(preludeText)
    : { tokens: 0, chars: 0 };
  const catalogPart = size(rendered.text.slice(prelude.chars));
  const wire = size(wireText(catalog));
  return {
    tools: rendered.bindings.length,
    sdk: whole,
    prelude,
    catalog: catalogPart,
    wire,
    ratio: { sdk: ratio(whole, wire), catalog: ratio(catalogPart, wire) },
  };
}
