/**
 * Measures run_code's full description (characters and o200k tokens) and the compact one, for
 * growing real catalogs: the figures behind the discovery threshold (decision record 019).
 * Run: `node --no-node-snapshot --import tsx test/mcp/measure-discovery.ts`
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type ToolSchema } from '../../src/index.js';
import { countTokens } from '../../src/tokens.js';

const root = join(import.meta.dirname, '../..');
const catalog = ['filesystem', 'everything'].flatMap(
  (n) =>
    JSON.parse(
      readFileSync(join(root, `test/fixtures/catalogs/${n}.json`), 'utf8'),
    ) as ToolSchema[],
);
for (const copies of [1, 2, 3, 4, 5, 6, 7]) {
  const rt = await createRuntime({
    tools: Array.from({ length: copies }, (_, i) => i).flatMap((i) =>
      catalog.map((t) => ({
        name: `server${i}.${t.name}`,
        description: t.description,
        input: t.inputSchema,
        execute: () => null,
      })),
    ),
    scopes: { default: { mode: 'code' } },
    codeMode: { warmup: false, typecheck: 'off' },
  });
  const full = rt.wireTools('mcp', 'default', { mode: 'never' })[0]?.description ?? '';
  const compact = rt.wireTools('mcp', 'default', { mode: 'always' })[0]?.description ?? '';
  const t = performance.now();
  const status = rt.discovery();
  const ms = performance.now() - t;
  console.log(
    `tools=${rt.sdk().bindings.length} full=${full.length} chars ${countTokens(full)} tokens (${(full.length / countTokens(full)).toFixed(2)} chars/token; first decision ${ms.toFixed(0)} ms) compact=${compact.length} chars ${countTokens(compact)} tokens compact=${String(status?.compact)}`,
  );
  await rt.close();
}
