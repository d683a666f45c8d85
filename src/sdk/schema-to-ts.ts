/** Standalone JSON Schema → TypeScript conversion (the converter behind renderSdk, for tests and tools). */
import { thrownText } from '../errors.js';
import { printType } from './ast.js';
import { SchemaConverter, type SchemaDoc } from './convert.js';
import { printDeclarations } from './declarations.js';
import { NameAllocator } from './names.js';
import type { SdkWarning } from './types.js';

/** Options of {@link jsonSchemaToTs}. */
export interface JsonSchemaToTsOptions {
  /** The type name used when the schema refers to itself (`$ref: "#"`). @default 'Root' */
  rootName?: string | undefined;
  /** Nesting depth of inline subschemas before a part becomes `unknown`. @default 32 */
  maxDepth?: number | undefined;
}

/** A converted schema. */
export interface JsonSchemaToTsResult {
  /** The type expression (a declared name when the schema refers to itself). */
  type: string;
  /** Declarations of the named types `type` uses (`$defs`, `definitions`, recursion), blank-line separated. */
  declarations: string;
  warnings: SdkWarning[];
}

/**
 * Converts one JSON Schema to a TypeScript type expression. Total: never throws; inexpressible parts
 * become `unknown` and are reported in `warnings` (pointers relative to the schema).
 */
export function jsonSchemaToTs(
  schema: unknown,
  options: JsonSchemaToTsOptions = {},
): JsonSchemaToTsResult {
  const names = new NameAllocator();
  const rootName = names.claim(options.rootName ?? 'Root');
  const converter = new SchemaConverter(
    '',
    '',
    names,
    { maxDepth: options.maxDepth ?? 32, maxNodes: 100_000 },
    () => rootName,
  );
  const doc: SchemaDoc = { id: 'schema', root: schema, pointerPrefix: '' };
  try {
    const node = converter.inline(doc, schema);
    converter.drain();
    const declarations = printDeclarations(converter.named, '', converter.warnings);
    const self = converter.named.get('schema#');
    const type =
      self !== undefined
        ? self.name
        : printType(node, '', (ref) => converter.named.get(ref.key)?.name ?? 'unknown');
    return { type, declarations: declarations.join('\n\n'), warnings: converter.warnings };
  } catch (err) {
    const message = `schema could not be read: ${thrownText(err)}`;
    return {
      type: 'unknown',
      declarations: '',
      warnings: [...converter.warnings, { tool: '', pointer: '', message }],
    };
  }
}
