import type { ToolDefinition } from './types.js';

/**
 * Defines a tool. A typed identity helper: the runtime validates the definition when it is
 * registered, and a plain object of the same shape is accepted wherever a tool is.
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
export function defineTool<Args, Result>(
  definition: ToolDefinition<Args, Result>,
): ToolDefinition<Args, Result> {
  return definition;
}
