/** What the provider adapters share: reading a provider's call and flattening result content. */
import { IsocodeError } from '../errors.js';
import type { ToolResult } from '../executor/types.js';
import type { ContentBlock } from '../tools/types.js';

/** Throws INVALID_ARGS unless `value` is an object; returns it typed as a record. */
export function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new IsocodeError('INVALID_ARGS', `${what} must be an object`);
  return value as Record<string, unknown>;
}

/** Throws INVALID_ARGS unless `value` is a non-empty string. */
export function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new IsocodeError('INVALID_ARGS', `${what} must be a non-empty string`);
  return value;
}

/** One content block as plain text (for providers whose tool results carry text only). */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${block.data.length} base64 characters]`;
    case 'resource':
      return block.resource.text ?? block.resource.uri;
  }
}

/** A result's content as one string, blocks separated by blank lines. */
export function resultText(result: ToolResult): string {
  return result.content.map(blockText).join('\n\n');
}
