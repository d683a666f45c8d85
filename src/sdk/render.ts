/** Tool catalog → the SDK declaration text a program is written and type-checked against. */
import { thrownText } from '../errors.js';
import { createHash } from 'node:crypto';
import type { ToolSchema } from '../tools/types.js';
import { INDENT, type RefResolver, printType } from './ast.js';
import { type SdkBinding, compareNames, sdkBindings } from './bindings.js';
import { type SchemaDoc, SchemaConverter } from './convert.js';
import { printDeclarations } from './declarations.js';
import { jsDoc, schemaDocLines, textLines } from './jsdoc.js';
import { NameAllocator, pascalCase, propertyKey } from './names.js';
import { type InlineType, sharedTypes } from './shared-types.js';
import { fillTemplate, readTemplate } from './templates.js';
import type { SdkWarning } from './types.js';

/** Options of {@link renderSdk}. */
export interface RenderSdkOptions {
  /** Nesting depth of inline subschemas before a part becomes `unknown`. @default 32 */
  maxDepth?: number | undefined;
  /** Render dotted tool names as nested objects (`tools.github.create_issue`). @default true */
  namespaces?: boolean | undefined;
}

/** A rendered SDK. */
export interface RenderedSdk {
  /** The declaration script: prelude, `interface Tools`, `declare const tools`, per-tool types. */
  text: string;
  /** SHA-256 (hex) of `text`. */
  hash: string;
  warnings: SdkWarning[];
  /**
   * Every rendered tool's binding path, sorted by tool name. Frozen (the list, each entry, each
   * path): one SDK serves every run of its scope until the catalog changes, so what a run derives
   * from it (the sandbox's tool index) is derived once (`prepareBindings` trusts a frozen list).
   */
  bindings: readonly SdkBinding[];
}

const DEFAULT_MAX_DEPTH = 32;
const MAX_NODES = 100_000;

interface Entry {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
  hasOutput: boolean;
  /** An inferred schema of the JSON in an MCP text result's `text` (output inference, src/infer). */
  textSchema?: unknown;
}

/**
 * The seam of output inference (src/infer): an entry may carry `inferredOutput: { schema, samples,
 * of }`. Without an output schema, `of: "value"` renders as the output type; `of: "text"` (an MCP
 * text result) renders as a `…Text` type of the JSON in `text`. Both are marked as inferred.
 */
function inferred(raw: object, entry: Entry, warnings: SdkWarning[]): void {
  const v = field(raw, 'inferredOutput', entry.name, warnings);
  if (typeof v !== 'object' || v === null) return;
  const schema = ownValue(v, 'schema');
  const samples = ownValue(v, 'samples');
  const of = ownValue(v, 'of');
  if (typeof schema !== 'object' || schema === null || typeof samples !== 'number') return;
  const from = `Inferred from ${samples} result${samples === 1 ? '' : 's'}`;
  if (of === 'value' && !entry.hasOutput) {
    entry.outputSchema = { ...schema, description: `${from}; not declared by the tool.` };
    entry.hasOutput = true;
  } else if (of === 'text' && entry.hasOutput) {
    entry.textSchema = {
      ...schema,
      description: `${from}: the JSON in \`text\` (JSON.parse(result.text)); not declared by the tool.`,
    };
  }
}

function ownValue(o: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key)
    ? (o as Record<string, unknown>)[key]
    : undefined;
}

function message(err: unknown): string {
  try {
    return thrownText(err);
  } catch {
    return 'unreadable error';
  }
}

function canonical(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Reads one field of an entry; a throwing accessor gives undefined and a warning. */
function field(raw: object, key: string, tool: string, warnings: SdkWarning[]): unknown {
  try {
    return ownValue(raw, key);
  } catch (err) {
    warnings.push({ tool, pointer: `/${key}`, message: `could not be read: ${message(err)}` });
    return undefined;
  }
}

function entry(raw: unknown, warnings: SdkWarning[]): Entry | undefined {
  let name: unknown;
  try {
    name = typeof raw === 'object' && raw !== null ? ownValue(raw, 'name') : undefined;
  } catch {
    name = undefined;
  }
  if (typeof raw !== 'object' || raw === null || typeof name !== 'string' || name === '') {
    const tool = typeof name === 'string' ? name : '';
    warnings.push({ tool, pointer: '', message: 'not a tool entry (needs a non-empty name)' });
    return undefined;
  }
  const description = field(raw, 'description', name, warnings);
  const outputSchema = field(raw, 'outputSchema', name, warnings);
  const e: Entry = {
    name,
    description: typeof description === 'string' ? description : '',
    inputSchema: field(raw, 'inputSchema', name, warnings),
    outputSchema,
    hasOutput: outputSchema !== undefined && outputSchema !== null,
  };
  inferred(raw, e, warnings);
  return e;
}

/** Valid entries, one per name (the smallest JSON text wins a duplicate, so input order never matters). */
function entries(catalog: readonly unknown[], warnings: SdkWarning[]): Entry[] {
  const byName = new Map<string, { entry: Entry; raw: unknown }>();
  const list = Array.isArray(catalog) ? (catalog as unknown[]) : [];
  if (!Array.isArray(catalog)) {
    warnings.push({ tool: '', pointer: '', message: 'the catalog is not an array' });
  }
  for (const raw of list) {
    const e = entry(raw, warnings);
    if (e === undefined) continue;
    const prior = byName.get(e.name);
    if (prior !== undefined) {
      warnings.push({ tool: e.name, pointer: '', message: 'duplicate tool name; one entry kept' });
      if (canonical(prior.raw) <= canonical(raw)) continue;
    }
    byName.set(e.name, { entry: e, raw });
  }
  return [...byName.values()].map((v) => v.entry).sort((a, b) => compareNames(a.name, b.name));
}

interface ToolTypes {
  declarations: string[];
  /** The input parameter's type text (an inline literal, or a name when the schema refers to itself). */
  input: string;
  /** The output type text; undefined when the tool declares no output schema. */
  output: string | undefined;
  /** The input and output as inline object literals (text and member names), which tools may share. */
  inline: { input: InlineType | undefined; output: InlineType | undefined };
  /** The parameter may be omitted: an object type whose members are all optional. */
  optionalInput: boolean;
  /** JSDoc of the input and output roots (`@param input …`, `@returns …`) when they are inline. */
  rootDoc: string[];
}

/** A root schema's doc as one tag (`@param input The query.`), when it has any. */
function rootTag(tag: string, schema: unknown): string[] {
  const lines = schemaDocLines(schema);
  if (lines.length === 0) return [];
  return [`${tag} ${lines[0] as string}`, ...lines.slice(1)];
}

function toolTypes(
  entry: Entry,
  stem: string,
  names: NameAllocator,
  options: RenderSdkOptions,
  warnings: SdkWarning[],
): ToolTypes {
  // The stem was claimed with both suffixes: a root that refers to itself takes one of them.
  const inputName = `${stem}Input`;
  const outputName = `${stem}Output`;
  const textName = entry.textSchema === undefined ? undefined : names.claim(`${stem}Text`);
  const converter = new SchemaConverter(
    entry.name,
    stem,
    names,
    { maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH, maxNodes: MAX_NODES },
    (doc) => (doc.id === 'input' ? inputName : doc.id === 'text' ? (textName ?? '') : outputName),
  );
  const input: SchemaDoc = { id: 'input', root: entry.inputSchema, pointerPrefix: '/inputSchema' };
  const output: SchemaDoc = {
    id: 'output',
    root: entry.outputSchema,
    pointerPrefix: '/outputSchema',
  };
  try {
    const inputNode = converter.inline(input, entry.inputSchema);
    const outputNode = entry.hasOutput ? converter.inline(output, entry.outputSchema) : undefined;
    if (textName !== undefined)
      converter.nameRoot(
        { id: 'text', root: entry.textSchema, pointerPrefix: '/inferredOutput/schema' },
        textName,
      );
    converter.drain();
    const declarations = printDeclarations(converter.named, entry.name, converter.warnings);
    warnings.push(...converter.warnings);
    const resolve: RefResolver = (ref) => converter.named.get(ref.key)?.name ?? 'unknown';
    const inputSelf = converter.named.has('input#');
    const outputSelf = converter.named.has('output#');
    const outputText =
      outputNode === undefined
        ? undefined
        : outputSelf
          ? outputName
          : printType(outputNode, '', resolve);
    const inputText = inputSelf ? inputName : printType(inputNode, '', resolve);
    return {
      declarations,
      input: inputText,
      output: outputText,
      inline: {
        input:
          !inputSelf && inputNode.kind === 'object'
            ? { text: inputText, keys: inputNode.members.map((m) => m.name), tool: entry.name }
            : undefined,
        output:
          outputText !== undefined && !outputSelf && outputNode?.kind === 'object'
            ? { text: outputText, keys: outputNode.members.map((m) => m.name), tool: entry.name }
            : undefined,
      },
      optionalInput: inputNode.kind === 'object' && inputNode.members.every((m) => m.optional),
      rootDoc: [
        ...(inputSelf ? [] : rootTag('@param input', entry.inputSchema)),
        ...(outputNode === undefined || outputSelf ? [] : rootTag('@returns', entry.outputSchema)),
        ...(textName === undefined ? [] : [`\`text\` holds JSON of type ${textName} (inferred).`]),
      ],
    };
  } catch (err) {
    warnings.push({
      tool: entry.name,
      pointer: '',
      message: `schema could not be read: ${message(err)}`,
    });
    return {
      declarations: [],
      input: 'unknown',
      output: entry.hasOutput ? 'unknown' : undefined,
      inline: { input: undefined, output: undefined },
      optionalInput: false,
      rootDoc: [],
    };
  }
}

/**
 * A tool's method: its description and root docs as JSDoc (one line when everything fits on one), then
 * the signature with the input and output types inline.
 */
function toolBlock(key: string, entry: Entry, t: ToolTypes): string {
  const lines = textLines(entry.description);
  const doc =
    lines.length <= 1 && t.rootDoc.length <= 2 && t.rootDoc.every((l) => l.startsWith('@'))
      ? [[...lines, ...t.rootDoc].join(' ')].filter((l) => l !== '')
      : [...lines, ...t.rootDoc];
  return fillTemplate(
    readTemplate('tool-block.tmpl'),
    {
      doc: jsDoc(doc, '').replace(/\n$/, ''),
      key: propertyKey(key),
      param: `input${t.optionalInput ? '?' : ''}: ${t.input}`,
      returns: t.output ?? 'JsonValue',
    },
    INDENT,
  );
}

interface Namespace {
  name: string;
  path: string[];
  members: Map<string, string>;
}

/**
 * Renders a tool catalog as a global TypeScript declaration script: the prelude, `interface Tools`
 * (nested namespace interfaces per {@link sdkBindings}), `declare const tools: Tools`, and each tool's
 * input/output/`$defs` types. Pure, total and deterministic: tools are sorted by name, the same catalog
 * in any order gives byte-identical text, and no input makes it throw (inexpressible parts become
 * `unknown` and are listed in `warnings`).
 */
export function renderSdk(
  catalog: readonly ToolSchema[],
  options: RenderSdkOptions = {},
): RenderedSdk {
  const warnings: SdkWarning[] = [];
  const list = entries(catalog, warnings);
  const bindings = sdkBindings(
    list.map((e) => e.name),
    { namespaces: options.namespaces },
  );
  const names = new NameAllocator();

  // Namespace interfaces first, then every tool's type-name stem, then `$defs` names as met.
  const root: Namespace = { name: 'Tools', path: [], members: new Map() };
  const spaces = new Map<string, Namespace>([[JSON.stringify([]), root]]);
  for (const b of bindings) {
    for (let i = 1; i < b.path.length; i++) {
      const key = JSON.stringify(b.path.slice(0, i));
      const path = b.path.slice(0, i);
      if (!spaces.has(key))
        spaces.set(key, {
          name: names.claim(`Tools${pascalCase(path.join(' '))}`),
          path,
          members: new Map(),
        });
    }
  }
  const stems = new Map(
    list.map((e) => [e.name, names.claim(pascalCase(e.name) || 'Tool', ['Input', 'Output'])]),
  );

  const types = list.map((entry) =>
    toolTypes(entry, stems.get(entry.name) as string, names, options, warnings),
  );
  const inputs = sharedTypes(
    types.map((t) => t.inline.input),
    'Input',
    names,
  );
  const outputs = sharedTypes(
    types.map((t) => t.inline.output),
    'Output',
    names,
  );
  const typeBlocks: string[] = [...inputs.declarations, ...outputs.declarations].map(
    (d) => `${d}\n`,
  );
  for (const [i, entry] of list.entries()) {
    const binding = bindings[i] as SdkBinding;
    const own = types[i] as ToolTypes;
    const t: ToolTypes = {
      ...own,
      input: inputs.names.get(own.input) ?? own.input,
      output: own.output === undefined ? undefined : (outputs.names.get(own.output) ?? own.output),
    };
    const parentKey = JSON.stringify(binding.path.slice(0, -1));
    const parent = binding.path.length === 1 ? root : (spaces.get(parentKey) as Namespace);
    parent.members.set(
      binding.path[binding.path.length - 1] as string,
      toolBlock(binding.path[binding.path.length - 1] as string, entry, t),
    );
    for (let j = 1; j < binding.path.length; j++) {
      const owner =
        j === 1 ? root : (spaces.get(JSON.stringify(binding.path.slice(0, j - 1))) as Namespace);
      const seg = binding.path[j - 1] as string;
      owner.members.set(
        seg,
        `${INDENT}${propertyKey(seg)}: ${(spaces.get(JSON.stringify(binding.path.slice(0, j))) as Namespace).name};`,
      );
    }
    typeBlocks.push(...t.declarations.map((d) => `${d}\n`));
  }

  const printSpace = (ns: Namespace): string => {
    const keys = [...ns.members.keys()].sort(compareNames);
    return `interface ${ns.name} {\n${keys.map((k) => `${ns.members.get(k) as string}\n`).join('')}}\n`;
  };
  const spaceTexts = [...spaces.values()]
    .filter((ns) => ns !== root)
    .sort((a, b) => compareNames(a.path.join('\u0000'), b.path.join('\u0000')))
    .map((ns) => printSpace(ns));
  const text = [
    readTemplate('prelude.d.ts').replace(/\n*$/, '\n'),
    printSpace(root),
    ...spaceTexts,
    'declare const tools: Tools;\n',
    ...typeBlocks,
  ].join('\n');
  for (const b of bindings) Object.freeze(Object.freeze(b).path);
  return {
    text,
    hash: createHash('sha256').update(text).digest('hex'),
    warnings,
    bindings: Object.freeze(bindings),
  };
}

/** The model-facing instructions for writing `run_code` programs (`sdk-templates/instructions.md`). */
export function renderInstructions(): string {
  return readTemplate('instructions.md').replace(/\n*$/, '\n');
}

/** The instructions followed by the SDK in a ```ts block: the body of a `run_code` description or prompt section. */
export function renderSdkPrompt(sdk: RenderedSdk): string {
  return `${renderInstructions()}\nThe SDK:\n\n\`\`\`ts\n${sdk.text.replace(/\n*$/, '\n')}\`\`\`\n`;
}
