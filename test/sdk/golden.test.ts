/**
 * Golden SDK files for catalogs captured from real MCP servers (scripts/capture-catalogs.ts) and a
 * hand-written catalog of constructs. `UPDATE_GOLDEN=1 npx vitest run test/sdk` rewrites them.
 * Every SDK is also type-checked together with a program that uses it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSdk } from '../../src/sdk/index.js';
import type { ToolSchema } from '../../src/tools/types.js';
import { typecheck } from './helpers/typecheck.js';

const update = process.env.UPDATE_GOLDEN === '1';

interface Case {
  catalog: string;
  /** A program that uses the bindings correctly. */
  good: string;
  /** Programs the checker must reject, each with a fragment of the expected message. */
  bad: [string, RegExp][];
  warnings: number;
}

const CASES: Case[] = [
  {
    catalog: 'filesystem',
    good: `
      const [a, b] = await Promise.all([
        tools.read_text_file({ path: '/tmp/a.txt' }),
        tools.read_text_file({ path: '/tmp/b.txt', head: 3 }),
      ]);
      const media = await tools.read_media_file({ path: '/tmp/x.png' });
      for (const c of media.content) {
        if (c.type === 'resource') console.log(c.resource.uri, c.resource.mimeType ?? 'unknown');
        else console.log(c.type, c.mimeType, c.data.length);
      }
      await tools.edit_file({ path: 'x', edits: [{ oldText: 'a', newText: 'b' }], dryRun: true });
      await tools.search_files({ path: '.', pattern: '*.ts', excludePatterns: ['node_modules'] });
      const dirs = await tools.list_allowed_directories();
      const total: number = a.content.length + b.content.length + dirs.content.length;
      console.log(total);`,
    bad: [
      ['await tools.read_text_file({});', /Property 'path' is missing/],
      ['await tools.read_text_file({ path: 1 });', /not assignable to type 'string'/],
      [
        'await tools.delete_file({ path: "x" });',
        /Property 'delete_file' does not exist on type 'Tools'/,
      ],
      [
        'const r = await tools.read_text_file({ path: "x" }); r.contents;',
        /'contents' does not exist/,
      ],
      [
        'const r = tools.read_text_file({ path: "x" }); r.content;',
        /'content' does not exist on type 'Promise/,
      ],
    ],
    warnings: 0,
  },
  {
    catalog: 'everything',
    good: `
      const weather = await tools['get-structured-content']({ location: 'Chicago' });
      const t: number = weather.temperature;
      const echoed = await tools.echo({ message: 'hi' });
      const sum = await tools['get-sum']({ a: 1, b: 2 });
      await tools['get-env']();
      await tools['trigger-long-running-operation']({ duration: 1, steps: 1 });
      console.log(t, echoed, sum);`,
    bad: [
      [
        "await tools['get-structured-content']({ location: 'Paris' });",
        /not assignable to type '"New York" \| "Chicago" \| "Los Angeles"'/,
      ],
      ['await tools.echo();', /Expected 1 arguments/],
      [
        "const s = await tools['get-sum']({ a: 1, b: 2 }); const n: number = s;",
        /not assignable to type 'number'/,
      ],
    ],
    warnings: 0,
  },
  {
    catalog: 'constructs',
    good: `
      const issue = await tools.github.create_issue({ repo: 'a/b', title: 'x', body: null, assignee: { login: 'me' } });
      const n: number = issue.number;
      const state: 'open' | 'closed' = issue.state;
      await tools.github.issues.list();
      const tree = await tools.fs.tree({ root: '/' });
      const walk = (e: FsTreeEntry | FsTreeFile): number =>
        e.kind === 'file' ? (e.size ?? 0) : e.children.reduce((s, c) => s + walk(c), 0);
      const u = await tools['get-user']({
        'user-id': 'u1',
        class: 'e\\nf',
        point: [1, 2],
        legacy_pair: ['a'],
        tags: { a: 'b' },
        headers: { 'x-a': 'b' },
        filter: { kind: 'age', min: 3 },
        meta: { a: 'x', b: 1 },
      });
      const friends: string[] = (u.user?.friends ?? []).map((f) => f.name ?? '');
      await tools.get_user({ id: 'x' });
      await tools.legacy.unsupported({ remote: 1, odd: 'x' });
      console.log(n, state, walk(tree), friends);`,
    bad: [
      [
        "await tools.github.create_issue({ repo: 'a/b', title: 'x', extra: 1 });",
        /'extra' does not exist/,
      ],
      [
        "await tools['get-user']({ 'user-id': 'u', point: [1] });",
        /Source has 1 element\(s\) but target requires 2/,
      ],
      [
        "await tools['get-user']({ 'user-id': 'u', filter: { kind: 'name' } });",
        /Property 'value' is missing/,
      ],
      ["await tools['get-user']({ 'user-id': 'u', class: 'x' });", /not assignable/],
    ],
    warnings: 2,
  },
];

const read = (path: string): string => readFileSync(new URL(path, import.meta.url), 'utf8');

describe.each(CASES)('golden SDK: $catalog', ({ catalog, good, bad, warnings }) => {
  const tools = JSON.parse(read(`../fixtures/catalogs/${catalog}.json`)) as ToolSchema[];
  const sdk = renderSdk(tools);
  const program = (body: string): string => `export {};\n${body}\n`;

  it('matches the golden file byte for byte', () => {
    const golden = new URL(`../fixtures/sdk/${catalog}.d.ts`, import.meta.url);
    if (update) {
      mkdirSync(new URL('../fixtures/sdk/', import.meta.url), { recursive: true });
      writeFileSync(golden, sdk.text);
    }
    expect(existsSync(golden), 'golden file missing: run with UPDATE_GOLDEN=1').toBe(true);
    expect(sdk.text).toBe(readFileSync(golden, 'utf8'));
    expect(sdk.warnings).toHaveLength(warnings);
    expect(sdk.bindings.map((b) => b.tool)).toEqual(
      tools.map((t) => t.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });

  it('type-checks a program that uses the bindings (strict, no DOM, both exactOptionalPropertyTypes settings)', () => {
    expect(typecheck(sdk.text, program(good))).toEqual([]);
    expect(
      typecheck(sdk.text, program(good), {
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
      }),
    ).toEqual([]);
  });

  it.each(bad)('rejects %s', (body, message) => {
    expect(typecheck(sdk.text, program(body)).join('\n')).toMatch(message);
  });
});
