import type { z } from 'zod';
import type { JsonSchema, ToolDefinition } from './types.js';

/** A plain JSON Schema object (not a zod schema: those carry `_zod`). */
type PlainJsonSchema = JsonSchema & { _zod?: never };

/** A schema as `defineTool` takes it: a zod 4 schema or a plain JSON Schema object. */
type DefinableSchema = z.ZodType | PlainJsonSchema;

/** The body's arguments: the parsed type of a zod `input`, else `A` (unknown unless annotated). */
type ArgsOf<I, A> = I extends z.ZodType ? z.output<I> : A;
/** The body's value: what a zod `output` accepts, else `R` (inferred from the body). */
type ResultOf<O, R> = O extends z.ZodType ? z.input<O> : R;

/**
 * Defines a tool. With zod schemas the body's arguments are typed from `input` (its parsed
 * output type) and its value must fit `output` (its input type); with a JSON Schema `input` the
 * arguments are `unknown` unless you annotate them. The runtime validates the definition when it
 * is registered, and a plain object of the same shape is accepted wherever a tool is.
 *
 * One signature, not one overload per kind of schema: a body whose value contradicts `output` is
 * reported on the body's value, where the mistake is, rather than as "no overload matches" on the
 * schema lines (decision record 033).
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
export function defineTool<
  I extends DefinableSchema,
  O extends DefinableSchema | undefined = undefined,
  A = unknown,
  R = unknown,
>(
  definition: Omit<ToolDefinition<ArgsOf<I, A>, ResultOf<O, R>>, 'input' | 'output'> & {
    input: I;
    output?: O;
  },
): ToolDefinition<ArgsOf<I, A>, ResultOf<O, R>>;
export function defineTool(definition: ToolDefinition): ToolDefinition {
  return definition;
}
