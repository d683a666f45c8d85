/** JSDoc rendering: schema annotations → comment lines, and comment lines → a safe `/** … *\/` block. */

type Schema = Record<string, unknown>;

function own(schema: Schema, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(schema, key) ? schema[key] : undefined;
}

/** Splits text into trimmed lines (any line terminator), dropping control characters and edge blank lines. */
export function textLines(text: string): string[] {
  const clean = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ')
    .replace(/\t/g, '  ');
  const lines = clean.split(/\r\n|[\r\n\u2028\u2029]/).map((l) => l.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function json(value: unknown): string | undefined {
  try {
    const s = JSON.stringify(value);
    return typeof s === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

function normalized(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const NUMERIC_TAGS = [
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
] as const;

/**
 * The documentation lines of a schema: title (unless it only restates `key`), description, then
 * `@deprecated`, `@default`, `@format`, numeric bounds, `@pattern` and `@example` tags.
 */
export function schemaDocLines(schema: unknown, key?: string): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const s = schema as Schema;
  const lines: string[] = [];
  const title = own(s, 'title');
  const description = own(s, 'description');
  if (typeof title === 'string' && (key === undefined || normalized(title) !== normalized(key))) {
    lines.push(...textLines(title));
  }
  if (typeof description === 'string') {
    const d = textLines(description);
    if (lines.length > 0 && d.length > 0) lines.push('');
    lines.push(...d);
  }
  if (own(s, 'deprecated') === true) lines.push('@deprecated');
  if (Object.prototype.hasOwnProperty.call(s, 'default')) {
    const d = json(own(s, 'default'));
    if (d !== undefined) lines.push(...textLines(`@default ${d}`));
  }
  if (own(s, 'type') === 'integer') lines.push('@integer');
  const format = own(s, 'format');
  if (typeof format === 'string') lines.push(...textLines(`@format ${format}`));
  for (const tag of NUMERIC_TAGS) {
    const v = own(s, tag);
    if (typeof v === 'number' && Number.isFinite(v)) lines.push(`@${tag} ${v}`);
  }
  const pattern = own(s, 'pattern');
  if (typeof pattern === 'string') lines.push(...textLines(`@pattern ${pattern}`));
  const examples = own(s, 'examples');
  if (Array.isArray(examples)) {
    for (const e of examples) {
      const text = json(e);
      if (text !== undefined) lines.push(...textLines(`@example ${text}`));
    }
  }
  return lines;
}

/** A JSDoc block at `indent` (empty string when there are no lines); a star-slash in the text is escaped. */
export function jsDoc(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return '';
  const safe = lines.map((l) => l.replace(/\*\//g, '*\\/'));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`;
}
