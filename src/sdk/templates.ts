/**
 * The SDK templates (`sdk-templates/` in the package root), found by walking up from this module's
 * directory so it works from `src/sdk/*.ts` and from a bundled `dist/*.js`. Read once, cached.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IsocodeError } from '../errors.js';

let dir: string | undefined;
const cache = new Map<string, string>();

/** The absolute path of the `sdk-templates` directory. */
export function templatesDir(): string {
  if (dir !== undefined) return dir;
  for (let d = dirname(fileURLToPath(import.meta.url)); ;) {
    const candidate = join(d, 'sdk-templates');
    if (existsSync(join(candidate, 'prelude.d.ts'))) return (dir = candidate);
    const parent = dirname(d);
    if (parent === d)
      throw new IsocodeError(
        'INTERNAL_ERROR',
        'sdk-templates/prelude.d.ts not found above the isocode package',
      );
    d = parent;
  }
}

/**
 * A template's text with line endings normalised to `\n` (so the SDK hash is platform-independent) and
 * `// eslint-…` and `// prettier-ignore` directive lines removed (they keep the templates lint- and
 * format-clean but mean nothing to a model).
 */
export function readTemplate(name: 'prelude.d.ts' | 'instructions.md' | 'tool-block.tmpl'): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(join(templatesDir(), name), 'utf8')
      .replace(/\r\n?/g, '\n')
      .replace(/^[ \t]*\/\/ (?:eslint-|prettier-ignore).*\n/gm, '');
    cache.set(name, text);
  }
  return text;
}

/**
 * Fills `{{slot}}` placeholders. A line whose slots all expand to empty text is dropped; a multi-line
 * value is indented with the line's leading whitespace.
 */
export function fillTemplate(
  template: string,
  slots: Readonly<Record<string, string>>,
  indent = '',
): string {
  const out: string[] = [];
  for (const line of template.replace(/\n+$/, '').split('\n')) {
    let sawSlot = false;
    let allEmpty = true;
    const filled = line.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
      sawSlot = true;
      const value = Object.prototype.hasOwnProperty.call(slots, key) ? (slots[key] as string) : '';
      if (value !== '') allEmpty = false;
      return value;
    });
    if (sawSlot && allEmpty && filled.trim() === '') continue;
    for (const l of filled.split('\n')) out.push(l === '' ? '' : indent + l);
  }
  return out.join('\n');
}
