import type { z } from 'zod';
import type { JsonSchema, ToolDefinition } from './types.js';

/** A plain JSON Schema object (not a zod schema: those carry `_zod`). */
type PlainJsonSchema = JsonSchema & { _zod?: never };

/** A definition with zod schemas: arguments typed from `input`, the body's value from `output`. */
type ZodToolDefinition<I extends z.ZodType, R> = Omit<
  ToolDefinition<z.output<I>, R>,
  'input' | 'output'
> & { input: I };

/**
 * Defines a tool. With zod schemas the body's arguments are typed from `input` (its parsed
 * output type) and its value must fit `output` (its input type); with a JSON Schema `input` the
 * arguments are `unknown` unless you annotate them. The runtime validates the definition when it
 * is registered, and a plain object of the same shape is accepted wherever a tool is.
 *
 * @example
 * const add = defineTool({
 *   name: 'math.add',
 *   description: 'Adds two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   output: z.object({ sum: z.number() }),
 *   isConcurrencySafe: true,
 *   execute: ({ a, b }) => ({ sum: a + b }),
 * });
 */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(
  definition: ZodToolDefinition<I, z.input<O>> & { output: O },
): ToolDefinition<z.output<I>, z.input<O>>;
export function defineTool<I extends z.ZodType, R = unknown>(
  definition: ZodToolDefinition<I, R> & { output?: PlainJsonSchema | undefined },
): ToolDefinition<z.output<I>, R>;
export function defineTool<O extends z.ZodType, Args = unknown>(
  definition: Omit<ToolDefinition<Args, z.input<O>>, 'input' | 'output'> & {
    input: PlainJsonSchema;
    output: O;
  },
): ToolDefinition<Args, z.input<O>>;
export function defineTool<Args = unknown, R = unknown>(
  definition: Omit<ToolDefinition<Args, R>, 'input' | 'output'> & {
    input: PlainJsonSchema;
    output?: PlainJsonSchema | undefined;
  },
): ToolDefinition<Args, R>;
export function defineTool(definition: ToolDefinition): ToolDefinition {
  return definition;
}
