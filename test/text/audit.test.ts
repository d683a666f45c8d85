/** The audit log is JSON lines a person may `tail -f`: no hidden character is written raw (decision 028). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool } from '../../src/index.js';

describe('the audit sink', () => {
  it('writes hidden characters of arguments as JSON escapes; each line parses to the same values', async () => {
    const lines: string[] = [];
    const runtime = await createRuntime({
      tools: [
        defineTool({
          name: 'files.open',
          description: 'Opens a file.',
          input: z.object({ name: z.string() }),
          execute: ({ name }: { name: string }) => name,
        }),
      ],
      audit: { write: (line) => lines.push(line) },
    });
    try {
      const name = 'invoice-\u202Efdp.exe\u009b\u{E0041}';
      const r = await runtime.execute({ name: 'files.open', args: { name } });
      expect(r.ok).toBe(true);
      const call = lines.find((l) => l.includes('"tool/call"'));
      expect(call).toBeDefined();
      expect(call).toContain('"name":"invoice-\\u202Efdp.exe\\u009B\\uDB40\\uDC41"');
      for (const l of lines) {
        expect(l).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u{E0000}-\u{E007F}]/u);
        expect(() => JSON.parse(l) as unknown).not.toThrow();
      }
      expect((JSON.parse(call!) as { args: { name: string } }).args.name).toBe(name);
    } finally {
      await runtime.close();
    }
  });
});
