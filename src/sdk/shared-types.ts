/**
 * Inline input or output types several tools share, declared once: `type ContentOutput = { content:
 * string };` instead of the same object literal in every signature (the filesystem server's thirteen
 * tools that return `{ content: string }`; its `read_file` and `read_text_file`, which take the same
 * input, property descriptions included). The type is the same; only its repetition goes.
 */
import { type NameAllocator, pascalCase } from './names.js';

/** A tool's inline object-literal type (input or output): its text, member names and tool. */
export interface InlineType {
  text: string;
  keys: readonly string[];
  tool: string;
}

/** The shared types: the name that replaces each shared text, and their declarations. */
export interface SharedTypes {
  names: ReadonlyMap<string, string>;
  declarations: string[];
}

const words = (name: string): string[] => name.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');

/**
 * The name of a shared type: the words all its tools' names share (`big.count_invoice`,
 * `big.list_invoice` → `BigInvoiceInput`), else its member names when there are at most three
 * (`ContentOutput`, `PathTailHeadInput`), else `Shared…`; the first of these still free.
 */
function sharedName(
  tools: readonly string[],
  keys: readonly string[],
  suffix: string,
  names: NameAllocator,
): string {
  const [first = [], ...rest] = tools.map(words);
  const common = first.filter((w) =>
    rest.every((ws) => ws.some((x) => x.toLowerCase() === w.toLowerCase())),
  );
  const candidates = [
    pascalCase(common.join(' ')),
    keys.length <= 3 ? pascalCase(keys.join(' ')) : '',
    'Shared',
  ]
    .filter((c) => c !== '')
    .map((c) => `${/^[A-Za-z_$]/.test(c) ? c : `T${c}`}${suffix}`);
  return names.claim(
    candidates.find((c) => names.isFree(c)) ?? (candidates[candidates.length - 1] as string),
  );
}

/**
 * Names the object literals used by two or more tools when naming one is shorter than repeating it:
 * `uses × text` against `uses × name` plus the declaration, in characters (a conservative stand-in
 * for tokens). `types` are in SDK order, so the names are deterministic.
 */
export function sharedTypes(
  types: readonly (InlineType | undefined)[],
  suffix: 'Input' | 'Output',
  names: NameAllocator,
): SharedTypes {
  const uses = new Map<string, { tools: string[]; keys: readonly string[] }>();
  for (const t of types) {
    if (t === undefined || !t.text.startsWith('{')) continue;
    const u = uses.get(t.text);
    if (u === undefined) uses.set(t.text, { tools: [t.tool], keys: t.keys });
    else u.tools.push(t.tool);
  }
  const named = new Map<string, string>();
  const declarations: string[] = [];
  for (const [text, { tools, keys }] of uses) {
    const count = tools.length;
    if (count < 2) continue;
    // Repeating: count × text. Naming: count × name, plus `type name = text;` once. The longest
    // candidate name stands in for the name (it is not known before it is claimed).
    const estimate = `${pascalCase(keys.join(' ')) || 'Shared'}${suffix}`.length;
    if ((count - 1) * text.length <= (count + 1) * estimate + 'type  = ;'.length) continue;
    const name = sharedName(tools, keys, suffix, names);
    named.set(text, name);
    declarations.push(`type ${name} = ${text};`);
  }
  return { names: named, declarations };
}
