/**
 * What a call to an upstream MCP tool without an output schema returns, as a type and a JSON
 * Schema. Apart from the MCP SDK, so `isocode/sources` loads without it (decision 038).
 */
import type { ContentBlock, JsonSchema } from '../index.js';

/** The value of a call to an upstream tool that declares no output schema. */
export interface McpTextResult {
  /** Every text block of the result, joined by "\n". */
  text: string;
  /** The result's content blocks. */
  content: ContentBlock[];
}

/** The JSON Schema of {@link McpTextResult}: the `output` of upstream tools without an outputSchema. */
export const MCP_TEXT_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'Every text block of the result, joined by newlines.' },
    content: {
      type: 'array',
      description: 'The content blocks of the result.',
      items: {
        anyOf: [
          {
            type: 'object',
            properties: { type: { const: 'text' }, text: { type: 'string' } },
            required: ['type', 'text'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: {
              type: { const: 'image' },
              data: { type: 'string', description: 'Base64 data.' },
              mimeType: { type: 'string' },
            },
            required: ['type', 'data', 'mimeType'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: {
              type: { const: 'resource' },
              resource: {
                type: 'object',
                properties: {
                  uri: { type: 'string' },
                  mimeType: { type: 'string' },
                  text: { type: 'string' },
                },
                required: ['uri'],
                additionalProperties: false,
              },
            },
            required: ['type', 'resource'],
            additionalProperties: false,
          },
        ],
      },
    },
  },
  required: ['text', 'content'],
  additionalProperties: false,
};
