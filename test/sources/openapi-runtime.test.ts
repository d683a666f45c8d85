/**
 * An OpenAPI source through the public runtime, opened from a config file: a run_code program calls
 * two operations in a Promise.all, type-checked against the generated SDK (a wrong field is a type
 * error and no request is sent), and the calls pass policy (deny), approval (ask) and the audit log
 * like any tool's.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest, RunCodeValue, ToolResult } from '../../src/index.js';
import { openRuntime } from '../../src/sources/index.js';
import type { OpenedRuntime } from '../../src/sources/index.js';
import { FIXTURES, TOKEN, startPetServer } from './openapi-server.js';
import type { PetServer } from './openapi-server.js';

let server: PetServer;
let opened: OpenedRuntime;
let dir: string;
const asked: ApprovalRequest[] = [];
const audit: string[] = [];

beforeAll(async () => {
  server = await startPetServer();
  dir = mkdtempSync(join(tmpdir(), 'isocode-openapi-'));
  // The document and the file its $ref names sit beside the config (relative paths resolve there).
  for (const f of ['petstore.json', 'petstore-common.json'])
    copyFileSync(join(FIXTURES, f), join(dir, f));
  writeFileSync(
    join(dir, 'isocode.config.json'),
    JSON.stringify({
      sources: [
        {
          name: 'pets',
          openapi: {
            spec: './petstore.json',
            baseUrl: `${server.origin}/v1`,
            headers: { Authorization: 'Bearer ${ISOCODE_TEST_PETS_TOKEN}' },
          },
        },
      ],
      scopes: { default: { mode: 'code', ask: ['pets.createPet'], deny: ['pets.deletePet'] } },
    }),
  );
  process.env.ISOCODE_TEST_PETS_TOKEN = TOKEN;
  opened = await openRuntime({
    configPath: join(dir, 'isocode.config.json'),
    runtime: {
      approver: (request) => {
        asked.push(request);
        return 'allowed-once';
      },
      audit: { write: (line) => audit.push(line) },
    },
  });
});

afterAll(async () => {
  delete process.env.ISOCODE_TEST_PETS_TOKEN;
  await opened?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (code: string): Promise<ToolResult> =>
  opened.runtime.execute({ name: 'run_code', args: { code, description: 'openapi test' } });

function resultOf(r: ToolResult): unknown {
  if (!r.ok) throw new Error(`run failed: ${r.error.code} ${r.error.message}`);
  return (r.value as unknown as RunCodeValue).result;
}

describe('an OpenAPI source in the public runtime', () => {
  it('reports the source, and its SDK types the operations (the recursive Category a named type)', () => {
    expect(opened.sources).toEqual([
      expect.objectContaining({
        kind: 'openapi',
        name: 'pets',
        toolCount: 6,
        skippedOperations: [],
      }),
    ]);
    const sdk = opened.runtime.sdk().text;
    expect(sdk).toContain('listPets(input?: {');
    expect(sdk).toMatch(
      /interface PetsGetCategoryTreeCategory \{[^}]*children: PetsGetCategoryTreeCategory\[\]/,
    );
    expect(sdk).not.toContain('deletePet'); // denied in this scope
  });

  it('runs a Promise.all of two operations in parallel and returns typed values', async () => {
    const before = server.requests.length;
    server.pairUp = true; // each request is answered only once the other one has arrived
    const r = await run(`
      const [pets, tree] = await Promise.all([
        tools.pets.listPets({ limit: 2, tag: ['dog', 'cat'], 'X-Request-Id': 'r-1' }),
        tools.pets.getCategoryTree({ categoryId: 7, depth: 2 }),
      ]);
      const names: string[] = pets.map((p) => p.name);
      const leaf: string | undefined = tree.children[0]?.children[1]?.name;
      return { names, statuses: pets.map((p) => p.status), leaf };
    `);
    expect(resultOf(r)).toEqual({
      names: ['Rex', 'Tom'],
      statuses: ['available', 'sold'],
      leaf: 'category 712',
    });
    server.pairUp = false;
    expect(server.pairs).toBe(1);
    const seen = server.requests.slice(before);
    expect(seen.map((s) => `${s.method} ${s.url}`).sort()).toEqual([
      'GET /v1/categories/7/tree?depth=2',
      'GET /v1/pets?limit=2&tag=dog&tag=cat',
    ]);
    for (const s of seen) expect(s.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen.find((s) => s.url.startsWith('/v1/pets'))?.headers['x-request-id']).toBe('r-1');

    // The audit log has both nested calls, with the run as their parent.
    const lines = audit.map(
      (l) => JSON.parse(l) as { type?: string; name?: string; parentId?: string },
    );
    const calls = lines.filter((l) => l.type === 'tool/call' && l.name?.startsWith('pets.'));
    expect(calls.map((c) => c.name).sort()).toEqual(['pets.getCategoryTree', 'pets.listPets']);
    for (const c of calls) expect(c.parentId).toBe(r.meta.callId);
  });

  it('a wrong field is a type error against the generated SDK, and nothing is sent', async () => {
    const before = server.requests.length;
    const r = await run(`
      const pets = await tools.pets.listPets({ limit: 1 });
      return pets[0]?.nmae;
    `);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('CODE_RUN_FAILED');
    expect(r.error.message).toMatch(/nmae/);
    const wrongArg = await run(`return await tools.pets.getPet({ petId: 'one' });`);
    expect(!wrongArg.ok && wrongArg.error.message).toMatch(/petId|string|number/);
    expect(server.requests.length).toBe(before);
  });

  it('an ask in the scope goes to the approver; a denied operation is not callable', async () => {
    asked.length = 0;
    const before = server.requests.length;
    const r = await run(`
      const pet = await tools.pets.createPet({ body: { name: 'Bubbles', tag: null } });
      return { id: pet.id, status: pet.status };
    `);
    expect(resultOf(r)).toEqual({ id: 4, status: 'pending' });
    expect(asked.map((a) => [a.name, a.args])).toEqual([
      ['pets.createPet', { body: { name: 'Bubbles', tag: null } }],
    ]);
    expect(server.requests.slice(before).map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/v1/pets', '{"name":"Bubbles","tag":null}'],
    ]);

    const denied = await run(`return await (tools as any).pets.deletePet({ petId: 1 });`);
    expect(denied.ok).toBe(false);
    expect(server.requests.some((s) => s.method === 'DELETE')).toBe(false);
  });

  it('a 404 reaches the program as a ToolCallError with the status and the body', async () => {
    const r = await run(`
      try {
        await tools.pets.getPet({ petId: 999 });
        return 'no error';
      } catch (e) {
        const err = e as ToolCallError;
        return { code: err.code, message: err.message };
      }
    `);
    const got = resultOf(r) as { code: string; message: string };
    expect(got.code).toBe('TOOL_ERROR');
    expect(got.message).toMatch(
      /pets\.getPet \(GET \/pets\/\{petId\}\) answered HTTP 404 Not Found: \{"code":404,"message":"no pet 999"\}/,
    );
  });
});
