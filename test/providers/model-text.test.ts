/**
 * What a model reads of a failure, through every face: the executor's content (`Error CODE…`,
 * written once by errorContent) goes out as it is. Nothing is prefixed twice, for every error code.
 */
import { describe, expect, it } from 'vitest';
import {
  createRuntime,
  defineTool,
  ERROR_CODES,
  IsocodeError,
  toAnthropicToolResult,
  toOpenAiFunctionCallOutput,
  toOpenAiToolMessage,
  type ErrorCode,
  type Runtime,
  type ToolResult,
} from '../../src/index.js';
import { toCallToolResult } from '../../src/mcp/result.js';

/** The text each face hands a model for one result. */
function faces(result: ToolResult): Record<string, unknown> {
  return {
    openai: toOpenAiToolMessage('call_1', result).content,
    responses: toOpenAiFunctionCallOutput('call_1', result).output,
    anthropic: toAnthropicToolResult('toolu_1', result).content,
    mcp: toCallToolResult(result, false).content,
  };
}
const everywhere = (text: string): Record<string, unknown> => ({
  openai: text,
  responses: text,
  anthropic: [{ type: 'text', text }],
  mcp: [{ type: 'text', text }],
});

/** A runtime whose `fail` tool ends, through the real pipeline, with the code it is given. */
async function failingRuntime(): Promise<Runtime> {
  const fail = defineTool({
    name: 'fail',
    description: 'Fails with a code.',
    input: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    execute: () => 'unreachable',
  });
  const kaput = defineTool({
    name: 'kaput',
    description: 'Throws.',
    input: { type: 'object', properties: { as: { type: 'string' } } },
    execute: (args: { as?: string }) => {
      if (args.as === 'upstream') throw new IsocodeError('UPSTREAM_ERROR', 'the upstream is down');
      throw new Error('kaput');
    },
  });
  const rt = await createRuntime({ tools: [fail, kaput], codeMode: false });
  rt.use({
    // An execute middleware may end a call with any code; the executor renders it.
    execute: async (ctx, next) => {
      const code = (ctx.args as { code?: ErrorCode }).code;
      return ctx.tool.name === 'fail' && code !== undefined
        ? { ok: false, code, message: `boom ${code}` }
        : next();
    },
    preExecute: (ctx) =>
      ctx.call.name === 'kaput' && (ctx.call.args as { as?: string }).as === 'secret'
        ? { action: 'deny', reason: 'secrets are off limits' }
        : undefined,
  });
  return rt;
}

describe('what a model reads of a failure', () => {
  it('every error code reads `Error CODE: message` once, the same on every face', async () => {
    const rt = await failingRuntime();
    try {
      for (const code of ERROR_CODES) {
        const result = await rt.execute({ name: 'fail', args: { code } });
        expect(result.ok, code).toBe(false);
        expect(faces(result), code).toEqual(everywhere(`Error ${code}: boom ${code}`));
      }
    } finally {
      await rt.close();
    }
  });

  it('the pipeline’s own failures read exactly so', async () => {
    const rt = await failingRuntime();
    try {
      const cases: [args: Parameters<Runtime['execute']>[0], text: string][] = [
        [{ name: 'nope', args: {} }, 'Error UNKNOWN_TOOL: unknown tool "nope" in scope "default"'],
        [{ name: 'kaput', args: {} }, 'Error TOOL_ERROR: kaput'],
        [{ name: 'kaput', args: { as: 'upstream' } }, 'Error UPSTREAM_ERROR: the upstream is down'],
        [
          { name: 'kaput', args: { as: 'secret' } },
          'Error DENIED (policy): secrets are off limits',
        ],
        [
          { name: 'fail', args: {} },
          "Error INVALID_ARGS: invalid arguments for fail: $.code: must have required property 'code'",
        ],
      ];
      for (const [call, text] of cases)
        expect(faces(await rt.execute(call)), call.name).toEqual(everywhere(text));
    } finally {
      await rt.close();
    }
  });

  it('a failed program reads `Error CODE_RUN_FAILED: typecheck: …` once, on every face', async () => {
    const rt = await createRuntime({ tools: [], scopes: { default: { mode: 'code' } } });
    try {
      const result = await rt.execute({
        name: 'run_code',
        args: { description: 'typo', code: 'const n: number = "one";\nreturn n;' },
      });
      expect(result.ok).toBe(false);
      const text = toOpenAiToolMessage('call_1', result).content;
      expect(text).toMatch(/^Error CODE_RUN_FAILED: typecheck/);
      expect(text.match(/Error CODE_RUN_FAILED/g)).toHaveLength(1);
      expect(text).toContain("Type 'string' is not assignable to type 'number'");
      expect(faces(result)).toEqual(everywhere(text));
    } finally {
      await rt.close();
    }
  });

  it('a failure whose content a hook replaced reads as the hook wrote it; emptied, as its error', async () => {
    const rt = await failingRuntime();
    try {
      rt.use({
        postExecute: (ctx) =>
          ctx.call.name !== 'kaput'
            ? undefined
            : {
                action: 'replace',
                content: ctx.call.args && 'as' in (ctx.call.args as object) ? [] : 'try later',
              },
      });
      expect(faces(await rt.execute({ name: 'kaput', args: {} }))).toEqual(everywhere('try later'));
      expect(faces(await rt.execute({ name: 'kaput', args: { as: 'x' } }))).toEqual(
        everywhere('Error TOOL_ERROR: kaput'),
      );
    } finally {
      await rt.close();
    }
  });
});
