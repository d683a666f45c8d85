/**
 * A lone surrogate — valid in a model's JSON arguments (`"\ud800"`) and in an upstream tool's
 * description — reaches the type-checker as U+FFFD, one code unit for one: the check answers, with
 * its positions unchanged, and no other scope's check waits behind it. (The compiler's transport
 * could not carry one: such a program held the compiler, and every scope's check, for its 15 s
 * time limit, then failed LIMIT_EXCEEDED.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, defineTool, type Runtime } from '../../src/index.js';

let rt: Runtime;

beforeAll(async () => {
  const tool = defineTool({
    name: 'echo',
    description: 'Echoes \udc00 its text \ud800.',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: (args: { text: string }) => args.text,
  });
  rt = await createRuntime({
    tools: [tool],
    scopes: { a: { mode: 'code' }, b: { mode: 'code' } },
    codeMode: { typecheck: 'error', sandbox: 'in-process' },
  });
}, 120_000);
afterAll(() => rt.close());

const run = (code: string, scope: string) =>
  rt.execute({ name: 'run_code', args: { code, description: 'lone surrogates' } }, { scope });

describe('lone surrogates in the checked text', () => {
  it('a program holding them type-checks and runs, beside another scope', async () => {
    const [odd, plain] = await Promise.all([
      // Raw in the text (the transpiler, UTF-8 inside, reads each as U+FFFD), and escaped (kept).
      run(
        'const raw = "\ud800x\udfff"; const kept = "\\ud800";\n' +
          'return [raw.length, await tools.echo({ text: kept })];',
        'a',
      ),
      run('return 1 + 1;', 'b'),
    ]);
    expect(odd.ok && odd.value).toMatchObject({ result: [3, '\ud800'] });
    expect(plain.ok && plain.value).toMatchObject({ result: 2 });
  }, 60_000);

  it('a type error after one is reported at its own line and column', async () => {
    const res = await run('const s = "\ud800\ud800";\nconst n: number = s;\nreturn n;', 'a');
    expect(res.ok).toBe(false);
    const details = !res.ok ? (res.error.details as { diagnostics?: unknown[] }) : {};
    expect(details.diagnostics?.[0]).toMatchObject({ line: 2, column: 7 });
  }, 60_000);
});
