/**
 * `openApiTools` against the local Petstore: the document from a file and from a URL, the HTTP
 * client's refusals (timeout, oversized body, 5xx, invalid JSON, wrong content type, a redirect to
 * another origin), and a bad document or config as INVALID_CONFIG.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, isIsocodeError } from '../../src/index.js';
import type { Runtime, ToolDefinition, ToolResult } from '../../src/index.js';
import { loadSources, openApiTools, parseConfig } from '../../src/sources/index.js';
import { FIXTURES, TOKEN, startPetServer } from './openapi-server.js';
import type { PetServer } from './openapi-server.js';
import { ctx, rejection, tool, until } from './helpers.js';

let server: PetServer;
let dir: string;
const auth = { Authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  server = await startPetServer();
  dir = mkdtempSync(join(tmpdir(), 'isocode-openapi-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A native-mode runtime over the Petstore's tools (calls by name, through the executor). */
async function petRuntime(
  extra: { timeoutMs?: number; maxResponseBytes?: number } = {},
): Promise<{ rt: Runtime; tools: ToolDefinition[] }> {
  const source = await openApiTools({
    name: 'pets',
    spec: join(FIXTURES, 'petstore.json'),
    baseUrl: `${server.origin}/v1`,
    headers: auth,
    ...extra,
  });
  return { rt: await createRuntime({ tools: source.tools }), tools: source.tools };
}

function failed(r: ToolResult): {
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
} {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r.error;
}

describe('openApiTools: the document', () => {
  it('makes one tool per operation with the operation names, descriptions and schemas', async () => {
    const source = await openApiTools({
      name: 'pets',
      spec: join(FIXTURES, 'petstore.json'),
      baseUrl: `${server.origin}/v1`,
    });
    expect(source.tools.map((t) => t.name).sort()).toEqual([
      'pets.createPet',
      'pets.deletePet',
      'pets.getCategoryTree',
      'pets.getPet',
      'pets.get_health',
      'pets.listPets',
    ]);
    const list = tool(source.tools, 'pets.listPets');
    expect(list.description).toBe(
      'List pets\n\nPets in the store, newest first, optionally filtered by tag.\n\n(GET /pets)',
    );
    expect(list.isConcurrencySafe).toBe(true);
    expect(tool(source.tools, 'pets.createPet')).toMatchObject({
      isConcurrencySafe: false,
      idempotent: false,
    });
    expect(tool(source.tools, 'pets.deletePet')).toMatchObject({ idempotent: true });
    // readOnly `id` is not required in the request body; nullable became a null type
    const input = tool(source.tools, 'pets.createPet').input as {
      required: string[];
      $defs: Record<string, unknown>;
    };
    expect(input.required).toEqual(['body']);
    expect(input.$defs.NewPet).toMatchObject({ properties: { tag: { type: ['string', 'null'] } } });
    expect(source.status()).toMatchObject({
      kind: 'openapi',
      baseUrl: `${server.origin}/v1`,
      toolCount: 6,
    });
    // a text response is returned as a string
    const withAuth = await openApiTools({
      name: 'pets',
      spec: join(FIXTURES, 'petstore.json'),
      baseUrl: `${server.origin}/v1`,
      headers: auth,
    });
    expect(await tool(withAuth.tools, 'pets.get_health').execute({}, ctx())).toBe('ok');
  });

  it('reads the document from a URL: relative servers[0] and external $refs resolve against it', async () => {
    const source = await openApiTools({
      name: 'remote',
      spec: `${server.origin}/openapi.json`,
      headers: auth,
    });
    expect(source.status().baseUrl).toBe(`${server.origin}/v1`);
    expect(await tool(source.tools, 'remote.getPet').execute({ petId: 2 }, ctx())).toMatchObject({
      name: 'Tom',
    });
    expect(server.requests.some((r) => r.url === '/petstore-common.json')).toBe(true);
  });

  it('a document fetched from a URL may not pull a $ref from another origin', async () => {
    const e = await rejection(
      openApiTools({ name: 'remote', spec: `${server.origin}/openapi-foreign.json` }),
    );
    expect(isIsocodeError(e) && e.code).toBe('INVALID_CONFIG');
    expect((e as Error).message).toMatch(/openapi-foreign\.json: .*localhost/);
    expect(server.requests.some((r) => r.headers.host?.startsWith('localhost'))).toBe(false);
  });

  it('a URL that never answers fails the load after loadTimeoutMs', async () => {
    const e = await rejection(
      openApiTools({
        name: 'remote',
        spec: `${server.origin}/openapi-never.json`,
        loadTimeoutMs: 300,
      }),
    );
    expect(isIsocodeError(e) && e.code).toBe('INVALID_CONFIG');
    expect((e as Error).message).toMatch(/openapi-never\.json: not loaded within 300 ms$/);
  });

  it('the operations allow-list keeps only the named ones, and refuses an unknown name', async () => {
    const spec = join(FIXTURES, 'petstore.json');
    const some = await openApiTools({
      name: 'pets',
      spec,
      baseUrl: server.origin,
      operations: ['getPet', 'get_health'],
    });
    expect(some.tools.map((t) => t.name).sort()).toEqual(['pets.getPet', 'pets.get_health']);
    const bad = await rejection(
      openApiTools({ name: 'pets', spec, baseUrl: server.origin, operations: ['getPett'] }),
    );
    expect(isIsocodeError(bad) && bad.code).toBe('INVALID_CONFIG');
    expect((bad as Error).message).toContain('"getPett"');
  });

  it('parameter names that clash get their location as a prefix; "." and ".." path values are refused', async () => {
    const spec = join(dir, 'clash.json');
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'clash', version: '1' },
        servers: [{ url: `${server.origin}/v1` }],
        paths: {
          '/files/{id}': {
            put: {
              parameters: [
                { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
                { name: 'id', in: 'query', schema: { type: 'string' } },
                { name: 'body', in: 'query', schema: { type: 'string' } },
                { name: '__proto__', in: 'header', schema: { type: 'string' } },
              ],
              requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
              responses: {
                '200': {
                  description: 'ok',
                  content: { 'application/json': { schema: { type: 'object' } } },
                },
              },
            },
          },
          '/upload': {
            post: {
              operationId: 'upload',
              requestBody: { required: true, content: { 'application/octet-stream': {} } },
              responses: { '204': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const source = await openApiTools({ name: 'files', spec });
    expect(source.tools.map((t) => t.name)).toEqual(['files.put_files_id']);
    expect(source.status().skippedOperations).toEqual([
      {
        operation: 'POST /upload',
        reason: "the request body's media types (application/octet-stream) are not JSON",
      },
    ]);
    const input = source.tools[0]?.input as { properties: Record<string, unknown> };
    expect(Object.keys(input.properties)).toEqual([
      'id',
      'query_id',
      'body',
      '__proto__',
      'requestBody',
    ]);
    const put = tool(source.tools, 'files.put_files_id');
    const dots = await rejection(put.execute({ id: '..' }, ctx()));
    expect(isIsocodeError(dots) && dots.code).toBe('TOOL_ERROR');
    expect((dots as Error).message).toContain('path parameter "id" may not be ".."');
  });
});

describe('openApiTools: a schema the validator cannot compile', () => {
  it('leaves out that operation with why; the document and the other operations serve', async () => {
    const spec = join(dir, 'uncompilable.json');
    const json = { 'application/json': { schema: { type: 'array' } } };
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'odd', version: '1' },
        servers: [{ url: `${server.origin}/v1` }],
        paths: {
          '/pets': {
            get: {
              operationId: 'listPets',
              responses: { '200': { description: 'ok', content: json } },
            },
          },
          '/odd': {
            post: {
              operationId: 'odd',
              requestBody: {
                required: true,
                content: { 'application/json': { schema: { type: 'nonsense' } } },
              },
              responses: { '200': { description: 'ok', content: json } },
            },
          },
          '/odd-out': {
            get: {
              operationId: 'oddOut',
              responses: {
                '200': {
                  description: 'ok',
                  content: { 'application/json': { schema: { type: 'object', minLength: 'x' } } },
                },
              },
            },
          },
        },
      }),
    );
    const source = await openApiTools({ name: 'odd', spec, headers: auth });
    expect(source.tools.map((t) => t.name)).toEqual(['odd.listPets']);
    expect(source.status().skippedOperations).toEqual([
      {
        operation: 'odd',
        reason: 'input schema cannot be compiled: type must be JSONType or JSONType[]: nonsense',
      },
      {
        operation: 'oddOut',
        reason: 'output schema cannot be compiled: minLength value must be ["number"]',
      },
    ]);
    const rt = await createRuntime({ tools: source.tools, codeMode: false });
    try {
      expect(
        await rt.execute({ name: 'odd.listPets', args: {} }, { scope: 'default' }),
      ).toMatchObject({
        ok: true,
      });
    } finally {
      await rt.close();
    }
  });
});

describe('openApiTools: schemas that refer to themselves', () => {
  it('a chain of $refs back to itself becomes an any-value, a pattern no RegExp accepts is dropped, and the SDK renders', async () => {
    const spec = join(dir, 'alias.json');
    const A = { $ref: '#/components/schemas/B' };
    const B = { $ref: '#/components/schemas/A' };
    const body = {
      content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } },
    };
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'alias', version: '1' },
        paths: {
          '/a': {
            post: {
              operationId: 'a',
              requestBody: body,
              responses: { '204': { description: 'ok' } },
            },
          },
          '/b': {
            get: {
              operationId: 'b',
              parameters: [{ name: 'q', in: 'query', schema: { type: 'string', pattern: '(' } }],
              responses: {
                '200': {
                  description: 'ok',
                  content: {
                    'application/json': {
                      schema: {
                        type: 'object',
                        patternProperties: { '[': {}, '^x-': { type: 'string' } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        components: { schemas: { A, B } },
      }),
    );
    const source = await openApiTools({ name: 'x', spec, baseUrl: server.origin });
    const rt = await createRuntime({ tools: source.tools, scopes: { default: { mode: 'code' } } });
    try {
      expect(rt.sdk().text).toMatch(
        /a\(input\?: \{ \/\*\* The request body\. \*\/ body\?: \w+ \}\): Promise<null>;/,
      );
      const b = tool(source.tools, 'x.b');
      expect(b.input).toMatchObject({ properties: { q: { type: 'string' } } });
      expect((b.input as { properties: { q: object } }).properties.q).not.toHaveProperty('pattern');
      expect(b.output).toMatchObject({ patternProperties: { '^x-': { type: 'string' } } });
      expect((b.output as { patternProperties: object }).patternProperties).not.toHaveProperty('[');
    } finally {
      await rt.close();
    }
  });
});

describe('openApiTools: a hostile or broken remote', () => {
  it('a call slower than timeoutMs is TOOL_TIMEOUT and its request is aborted', async () => {
    const { rt } = await petRuntime({ timeoutMs: 300 });
    server.mode = 'slow';
    try {
      const before = server.abandoned;
      const e = failed(await rt.execute({ name: 'pets.listPets', args: {} }));
      expect(e.code).toBe('TOOL_TIMEOUT');
      await until(() => server.abandoned > before, 'the aborted request to close');
    } finally {
      server.mode = 'normal';
      await rt.close();
    }
  });

  it('a body over maxResponseBytes is LIMIT_EXCEEDED, and reading stops near the limit', async () => {
    const { rt } = await petRuntime({ maxResponseBytes: 64 * 1024 });
    server.mode = 'huge';
    try {
      const e = failed(await rt.execute({ name: 'pets.listPets', args: {} }));
      expect(e.code).toBe('LIMIT_EXCEEDED');
      expect(e.message).toMatch(/larger than 65536 bytes \(maxResponseBytes\)/);
      expect(e.details).toMatchObject({ limit: 'maxResponseBytes', limitBytes: 65536 });
      // The server offers 256 MiB; the client stopped after a few socket buffers.
      await until(() => server.abandoned > 0, 'the oversized answer to be abandoned');
      expect(server.hugeBytes).toBeLessThan(32 * 1_048_576);
      // A Content-Length over the limit is refused before the body is read.
      server.mode = 'declared-huge';
      const declared = failed(await rt.execute({ name: 'pets.listPets', args: {} }));
      expect([declared.code, declared.details?.limit]).toEqual([
        'LIMIT_EXCEEDED',
        'maxResponseBytes',
      ]);
    } finally {
      server.mode = 'normal';
      await rt.close();
    }
  });

  it('5xx, invalid JSON, a wrong content type and a redirect away are typed errors; a redirect home is followed', async () => {
    const { rt } = await petRuntime();
    try {
      server.mode = 'boom';
      const boom = failed(await rt.execute({ name: 'pets.listPets', args: {} }));
      expect(boom.code).toBe('UPSTREAM_ERROR');
      expect(boom.message).toMatch(
        /answered HTTP 500 Internal Server Error: Internal failure !+… \(truncated\)$/,
      );
      expect(boom.message.length).toBeLessThan(700);
      expect(boom.details).toMatchObject({
        httpStatus: 500,
        source: 'pets',
        operation: 'listPets',
      });

      server.mode = 'invalid-json';
      const bad = failed(await rt.execute({ name: 'pets.getPet', args: { petId: 1 } }));
      expect(bad.code).toBe('UPSTREAM_ERROR');
      expect(bad.message).toMatch(/the response is not valid JSON .*: \{"id": 1, "name":$/);

      server.mode = 'deep';
      const deep = failed(await rt.execute({ name: 'pets.getPet', args: { petId: 1 } }));
      expect([deep.code, deep.message]).toEqual([
        'UPSTREAM_ERROR',
        expect.stringMatching(/the response JSON nests too deeply$/),
      ]);

      server.mode = 'html';
      const html = failed(await rt.execute({ name: 'pets.getPet', args: { petId: 1 } }));
      expect(html.code).toBe('UPSTREAM_ERROR');
      expect(html.message).toMatch(
        /expected a JSON response, got content type "text\/html": <html>/,
      );

      server.mode = 'redirect-away';
      const away = failed(await rt.execute({ name: 'pets.getPet', args: { petId: 1 } }));
      expect(away.code).toBe('UPSTREAM_ERROR');
      expect(away.message).toMatch(/redirected to another origin \(http:\/\/attacker\.invalid\)/);

      server.mode = 'redirect-home';
      const home = await rt.execute({ name: 'pets.listPets', args: { limit: 5 } });
      expect(home.ok && home.value).toEqual([
        { id: 1, name: 'Rex', tag: 'dog', status: 'available' },
      ]);
    } finally {
      server.mode = 'normal';
      await rt.close();
    }
  });

  it('a body that breaks off is UPSTREAM_UNAVAILABLE naming the operation and the status, not a bare "terminated"', async () => {
    const { rt } = await petRuntime();
    server.mode = 'reset-mid';
    try {
      const e = failed(await rt.execute({ name: 'pets.listPets', args: {} }));
      expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(e.message).toMatch(
        /^pets\.listPets \(GET \/pets\): the connection failed while the answer was read \(HTTP 503 Service Unavailable\): /,
      );
      expect(e.details).toMatchObject({ source: 'pets', operation: 'listPets', httpStatus: 503 });
      server.mode = 'normal';
      expect((await rt.execute({ name: 'pets.listPets', args: { limit: 1 } })).ok).toBe(true);
    } finally {
      server.mode = 'normal';
      await rt.close();
    }
  });

  it('what the service writes is shown with its control and bidi characters escaped, its reason phrase bounded, configured secrets redacted', async () => {
    const { rt } = await petRuntime();
    try {
      server.mode = 'control-text';
      const e = failed(await rt.execute({ name: 'pets.listPets', args: {} }));
      expect(e.code).toBe('UPSTREAM_ERROR');
      // eslint-disable-next-line no-control-regex
      expect(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/u.test(e.message)).toBe(false);
      expect(e.message).toContain('\\u001B[2J');
      expect(e.message).toContain('\\u202E');
      expect(e.message).toMatch(/answered HTTP 502 Bad (Gateway ?){10,}…: fail /);
      expect(e.message.length).toBeLessThan(400);
      expect(String(e.details?.body)).not.toContain('\u001b');

      server.mode = 'echo-token';
      const echoed = failed(await rt.execute({ name: 'pets.listPets', args: {} }));
      expect(echoed.code).toBe('TOOL_ERROR');
      expect(echoed.message).toContain('token [redacted] is not allowed here');
      expect(JSON.stringify(echoed)).not.toContain(TOKEN);
    } finally {
      server.mode = 'normal';
      await rt.close();
    }
  });

  it('a JSON body after a byte-order mark is read; five redirects within the origin are followed', async () => {
    const { rt } = await petRuntime();
    try {
      server.mode = 'bom';
      const bom = await rt.execute({ name: 'pets.listPets', args: {} });
      expect(bom.ok && bom.value).toEqual([
        { id: 1, name: 'Rex', tag: 'dog', status: 'available' },
      ]);
      server.mode = 'redirect-5';
      const five = await rt.execute({ name: 'pets.listPets', args: {} });
      expect(five.ok && five.value).toEqual([
        { id: 1, name: 'Rex', tag: 'dog', status: 'available' },
      ]);
    } finally {
      server.mode = 'normal';
      await rt.close();
    }
  });

  it('a wrong token is a 401 TOOL_ERROR; an unreachable service is UPSTREAM_UNAVAILABLE', async () => {
    const spec = join(FIXTURES, 'petstore.json');
    const noAuth = await openApiTools({ name: 'pets', spec, baseUrl: `${server.origin}/v1` });
    const e = await rejection(tool(noAuth.tools, 'pets.getPet').execute({ petId: 1 }, ctx()));
    expect(isIsocodeError(e) && [e.code, e.details?.httpStatus]).toEqual(['TOOL_ERROR', 401]);
    const down = await openApiTools({ name: 'pets', spec, baseUrl: 'http://127.0.0.1:9/v1' });
    const d = await rejection(tool(down.tools, 'pets.getPet').execute({ petId: 1 }, ctx()));
    expect(isIsocodeError(d) && d.code).toBe('UPSTREAM_UNAVAILABLE');
  });
});

describe('openApiTools: a bad document or config is INVALID_CONFIG', () => {
  const write = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const cases: [string, () => string, RegExp][] = [
    ['a missing file', () => join(dir, 'nope.json'), /nope\.json: file not found/],
    [
      'not JSON (YAML is not read)',
      () => write('yaml.json', 'openapi: 3.0.0\npaths: {}\n'),
      /yaml\.json: .*is not valid JSON/,
    ],
    [
      'nesting deeper than any JSON crossing a boundary',
      () =>
        write(
          'deep.json',
          `{"openapi":"3.1.0","paths":{},"x":${'['.repeat(300)}${']'.repeat(300)}}`,
        ),
      /deep\.json: nests too deeply/,
    ],
    [
      'Swagger 2.0',
      () => write('swagger.json', '{"swagger":"2.0","paths":{}}'),
      /expected "openapi": "3\.0\.x" or "3\.1\.x", got Swagger 2\.0/,
    ],
    [
      'paths not an object',
      () => write('paths.json', '{"openapi":"3.0.0","paths":[]}'),
      /"paths" must be an object/,
    ],
    [
      'an unresolvable $ref',
      () =>
        write(
          'ref.json',
          '{"openapi":"3.1.0","paths":{"/a":{"get":{"responses":{"200":{"$ref":"#/components/responses/Nope"}}}}}}',
        ),
      /Nope/,
    ],
    ['a URL that answers 404', () => `${server.origin}/missing.json`, /HTTP 404/],
    [
      'a $ref to a device that never ends (read without a bound before)',
      () =>
        write(
          'zero.json',
          '{"openapi":"3.1.0","paths":{"/a":{"get":{"responses":{"200":{"$ref":"/dev/zero#/x"}}}}}}',
        ),
      /OpenAPI document \/dev\/zero: is not a regular file/,
    ],
    [
      'a $ref to a FIFO nobody writes (never returned before)',
      () => {
        execFileSync('mkfifo', [join(dir, 'pipe')]);
        return write(
          'fifo.json',
          '{"openapi":"3.1.0","paths":{"/a":{"get":{"responses":{"200":{"$ref":"./pipe#/x"}}}}}}',
        );
      },
      /pipe: is not a regular file/,
    ],
  ];
  for (const [what, spec, message] of cases) {
    it(`${what}`, async () => {
      const e = await rejection(openApiTools({ name: 'x', spec: spec(), baseUrl: server.origin }));
      expect(isIsocodeError(e) && e.code).toBe('INVALID_CONFIG');
      expect((e as Error).message).toMatch(message);
    });
  }

  it('headers HTTP cannot send and a base URL with credentials are refused at load, the secret not quoted', async () => {
    const spec = join(FIXTURES, 'petstore.json');
    const header = await rejection(
      openApiTools({
        name: 'pets',
        spec,
        baseUrl: `${server.origin}/v1`,
        headers: { Authorization: 'Bearer SUPER\nSECRET' },
      }),
    );
    expect(isIsocodeError(header) && header.code).toBe('INVALID_CONFIG');
    expect((header as Error).message).toContain('header "Authorization"');
    expect((header as Error).message).not.toContain('SECRET');
    const userinfo = await rejection(
      openApiTools({ name: 'pets', spec, baseUrl: 'http://user:p%40ss-SECRET@127.0.0.1:9/v1' }),
    );
    expect(isIsocodeError(userinfo) && userinfo.code).toBe('INVALID_CONFIG');
    expect((userinfo as Error).message).toMatch(/has credentials in it/);
    expect((userinfo as Error).message).not.toContain('SECRET');
  });

  it('an operation whose path holds "?" or "#" is left out with why', async () => {
    const file = write(
      'hash.json',
      JSON.stringify({
        openapi: '3.1.0',
        paths: {
          '/m/ok#': { get: { operationId: 'hashed', responses: { 200: { description: 'ok' } } } },
          '/m/fine': { get: { operationId: 'fine', responses: { 200: { description: 'ok' } } } },
        },
      }),
    );
    const source = await openApiTools({ name: 'h', spec: file, baseUrl: server.origin });
    expect(source.tools.map((t) => t.name)).toEqual(['h.fine']);
    expect(source.status().skippedOperations).toEqual([
      { operation: 'GET /m/ok#', reason: 'its path has a "?" or "#" in it' },
    ]);
  });

  it('a config entry: a relative spec resolves against the config, a URL stays; names are unique across kinds', () => {
    const c = parseConfig(
      {
        sources: [
          { name: 'pets', openapi: { spec: './petstore.json' } },
          {
            name: 'gh',
            openapi: {
              spec: 'https://api.example.invalid/openapi.json',
              operations: ['issues/list'],
              timeoutMs: 5000,
            },
          },
        ],
      },
      dir,
    );
    expect(c.sources).toEqual([
      {
        kind: 'openapi',
        name: 'pets',
        openapi: {
          spec: join(dir, 'petstore.json'),
          baseUrl: undefined,
          headers: {},
          timeoutMs: undefined,
          maxResponseBytes: undefined,
          operations: undefined,
        },
      },
      {
        kind: 'openapi',
        name: 'gh',
        openapi: {
          spec: 'https://api.example.invalid/openapi.json',
          baseUrl: undefined,
          headers: {},
          timeoutMs: 5000,
          maxResponseBytes: undefined,
          operations: ['issues/list'],
        },
      },
    ]);
    expect(() =>
      parseConfig(
        {
          sources: [
            { name: 'pets', openapi: { spec: 'a.json' } },
            { name: 'pets', mcp: { command: 'x' } },
          ],
        },
        dir,
      ),
    ).toThrow(/sources\[1\]\.name: duplicate source name "pets" \(also sources\[0\]\)/);
  });

  it('through a config: the failing source is named; bad keys are refused when parsing', async () => {
    const config = parseConfig(
      { sources: [{ name: 'pets', openapi: { spec: './nope.json' } }] },
      dir,
    );
    const e = await rejection(loadSources(config));
    expect(isIsocodeError(e) && e.code).toBe('INVALID_CONFIG');
    expect((e as Error).message).toMatch(
      /^sources\[0\] \(openapi "pets"\): OpenAPI document .*nope\.json: file not found/,
    );
    const unset = parseConfig(
      {
        sources: [
          {
            name: 'pets',
            openapi: {
              spec: join(FIXTURES, 'petstore.json'),
              headers: { Authorization: 'Bearer ${NOT_SET_ANYWHERE_X}' },
            },
          },
        ],
      },
      dir,
    );
    expect(((await rejection(loadSources(unset, { env: {} }))) as Error).message).toMatch(
      /openapi\.headers\.Authorization: environment variable NOT_SET_ANYWHERE_X is not set/,
    );
    expect(() =>
      parseConfig(
        {
          sources: [{ name: 'pets', openapi: { spec: 'x.json', baseUrl: 'ftp://x', retries: 3 } }],
        },
        dir,
      ),
    ).toThrow(
      /sources\[0\]\.openapi\.baseUrl: expected an http: or https: URL.*sources\[0\]\.openapi\.retries: unknown key|sources\[0\]\.openapi\.retries: unknown key.*baseUrl/,
    );
  });
});
