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
 * The JSDoc tags of a schema's constraints, each once: `@deprecated`, `@default`, `@integer`, `@format`,
 * numeric bounds, `@pattern`, `@example` (enums and consts are in the type itself).
 */
function constraintTags(s: Schema): string[] {
  const tags: string[] = [];
  if (own(s, 'deprecated') === true) tags.push('@deprecated');
  if (Object.prototype.hasOwnProperty.call(s, 'default')) {
    const d = json(own(s, 'default'));
    if (d !== undefined) tags.push(`@default ${d}`);
  }
  if (own(s, 'type') === 'integer') tags.push('@integer');
  const format = own(s, 'format');
  if (typeof format === 'string') tags.push(`@format ${format}`);
  for (const tag of NUMERIC_TAGS) {
    const v = own(s, tag);
    if (typeof v === 'number' && Number.isFinite(v)) tags.push(`@${tag} ${v}`);
  }
  const pattern = own(s, 'pattern');
  if (typeof pattern === 'string') tags.push(`@pattern ${pattern}`);
  const examples = own(s, 'examples');
  if (Array.isArray(examples)) {
    for (const e of examples) {
      const text = json(e);
      if (text !== undefined) tags.push(`@example ${text}`);
    }
  }
  return tags.flatMap((t) => textLines(t));
}

/**
 * The documentation lines of a schema: title (unless it only restates `key`), description, then its
 * constraint tags. Compact: the tags share one line (the description's own line when that is its only
 * line), unless a tag's free text (a format or pattern) holds whitespace or an `@`, which would make the
 * line ambiguous: then each tag has its own line.
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
  if (typeof description === 'string') lines.push(...textLines(description));
  const tags = constraintTags(s);
  if (tags.length === 0) return lines;
  const spaced = tags.some(
    (t) => /\s|@/.test(t.replace(/^@\w+ ?/, '')) && /^@(format|pattern) /.test(t),
  );
  if (spaced) return [...lines, ...tags];
  const joined = tags.join(' ');
  if (lines.length === 0) return [joined];
  if (lines.length === 1) return [`${lines[0] as string} ${joined}`];
  return [...lines, joined];
}

/** A JSDoc block at `indent` (empty string when there are no lines); a star-slash in the text is escaped. */
export function jsDoc(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return '';
  const safe = lines.map((l) => l.replace(/\*\//g, '*\\/'));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`;
}
