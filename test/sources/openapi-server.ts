/**
 * A local Petstore (node:http on 127.0.0.1) implementing the operations of
 * test/fixtures/openapi/petstore.json, serving the document itself at /openapi.json, and
 * misbehaving on demand (`mode`) the way a hostile or broken remote does.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../fixtures/openapi/', import.meta.url));
export const TOKEN = 'sekret-token';

/** How the server answers every /v1 request. */
export type Mode =
  | 'normal'
  | 'slow'
  | 'huge'
  | 'declared-huge'
  | 'invalid-json'
  | 'deep'
  | 'html'
  | 'boom'
  | 'redirect-away'
  | 'redirect-home'
  | 'reset-mid'
  | 'control-text'
  | 'echo-token'
  | 'bom'
  | 'redirect-5';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface PetServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  mode: Mode;
  /**
   * While true, each /v1 request is held until a second one arrives (then both are answered): two
   * calls complete only if they were in flight together. `pairs` counts pairs released that way.
   */
  pairUp: boolean;
  readonly pairs: number;
  readonly requests: SeenRequest[];
  /** Requests whose connection the client closed before the answer ended. */
  readonly abandoned: number;
  /** Bytes written of the last `huge` answer. */
  readonly hugeBytes: number;
  close(): Promise<void>;
}

interface Pet {
  id: number;
  name: string;
  tag: string | null;
  status: 'available' | 'pending' | 'sold';
}

const json = (res: ServerResponse, status: number, value: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
};

function tree(id: number, depth: number): unknown {
  return {
    id,
    name: `category ${id}`,
    children: depth <= 0 ? [] : [tree(id * 10 + 1, depth - 1), tree(id * 10 + 2, depth - 1)],
  };
}

/** Starts the server on a free port. */
export async function startPetServer(): Promise<PetServer> {
  const pets: Pet[] = [
    { id: 1, name: 'Rex', tag: 'dog', status: 'available' },
    { id: 2, name: 'Tom', tag: 'cat', status: 'sold' },
    { id: 3, name: 'Nemo', tag: null, status: 'available' },
  ];
  const spec = JSON.parse(readFileSync(`${FIXTURES}petstore.json`, 'utf8')) as Record<
    string,
    unknown
  >;
  spec.servers = [{ url: '/v1' }];
  const common = readFileSync(`${FIXTURES}petstore-common.json`, 'utf8');
  let abandoned = 0;
  let hugeBytes = 0;

  const misbehave = (mode: Mode, req: IncomingMessage, res: ServerResponse): void => {
    if (mode === 'slow') {
      const timer = setTimeout(() => json(res, 200, []), 30_000);
      res.on('close', () => clearTimeout(timer));
    } else if (mode === 'huge') {
      // An endless array, streamed without Content-Length, until the client stops reading.
      hugeBytes = 0;
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = `${JSON.stringify({ id: 1, name: 'x'.repeat(1000), tag: null, status: 'sold' })},`;
      const pump = (): void => {
        while (!res.destroyed && hugeBytes < 256 * 1_048_576) {
          hugeBytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.write('[');
      pump();
    } else if (mode === 'invalid-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": 1, "name": ');
    } else if (mode === 'declared-huge') {
      const body = Buffer.alloc(8 * 1_048_576, 0x20);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    } else if (mode === 'deep') {
      res.writeHead(200, { 'content-type': 'application/problem+json' });
      res.end(`${'['.repeat(5000)}${']'.repeat(5000)}`);
    } else if (mode === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Welcome to the captive portal</body></html>');
    } else if (mode === 'boom') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`Internal failure ${'!'.repeat(20_000)}`);
    } else if (mode === 'reset-mid') {
      // A 503 whose body breaks off: the connection is reset mid-body.
      res.writeHead(503, { 'content-type': 'text/plain', 'content-length': 1000 });
      res.write('Service Unavailable: partial');
      setTimeout(() => res.socket?.destroy(), 20);
    } else if (mode === 'control-text') {
      // Terminal escapes, bidi overrides and a long reason phrase, as a hostile service sends them.
      res.writeHead(502, `Bad ${'Gateway '.repeat(400)}`, { 'content-type': 'text/plain' });
      res.end('fail \u001b[2J\u001b[31mred\u202Eevil\u0007 end');
    } else if (mode === 'echo-token') {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end(`token ${String(req.headers.authorization)} is not allowed here`);
    } else if (mode === 'bom') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`\uFEFF${JSON.stringify(pets.slice(0, 1))}`);
    } else if (mode === 'redirect-5') {
      // Five redirects, then the answer: "at most five" are followed.
      const hop = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('hop') ?? 0);
      if (hop < 5) {
        res.writeHead(302, { location: `/v1/pets?hop=${hop + 1}` });
        res.end();
      } else json(res, 200, pets.slice(0, 1));
    } else if (mode === 'redirect-away') {
      res.writeHead(302, { location: 'http://attacker.invalid/steal' });
      res.end();
    } else if (req.url !== '/v1/pets?limit=1') {
      res.writeHead(307, { location: '/v1/pets?limit=1' });
      res.end();
    } else json(res, 200, pets.slice(0, 1));
  };

  const route = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    let m: RegExpMatchArray | null;
    if (url.pathname === '/v1/pets' && method === 'GET') {
      const tags = url.searchParams.getAll('tag');
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const rid = req.headers['x-request-id'];
      if (typeof rid === 'string') res.setHeader('x-request-id', rid);
      return json(
        res,
        200,
        pets.filter((p) => tags.length === 0 || tags.includes(p.tag ?? '')).slice(0, limit),
      );
    }
    if (url.pathname === '/v1/pets' && method === 'POST') {
      const input = JSON.parse(body) as { name: string; tag?: string | null };
      const pet: Pet = {
        id: pets.length + 1,
        name: input.name,
        tag: input.tag ?? null,
        status: 'pending',
      };
      pets.push(pet);
      return json(res, 201, pet);
    }
    if ((m = /^\/v1\/pets\/(\d+)$/.exec(url.pathname))) {
      const index = pets.findIndex((p) => p.id === Number(m?.[1]));
      if (index < 0) return json(res, 404, { code: 404, message: `no pet ${m[1]}` });
      if (method === 'DELETE') {
        pets.splice(index, 1);
        res.writeHead(204).end();
        return;
      }
      return json(res, 200, pets[index]);
    }
    if ((m = /^\/v1\/categories\/(\d+)\/tree$/.exec(url.pathname)))
      return json(res, 200, tree(Number(m[1]), Number(url.searchParams.get('depth') ?? 2)));
    if (url.pathname === '/v1/health') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    json(res, 404, { code: 404, message: 'no such route' });
  };

  const requests: SeenRequest[] = [];
  const state = { mode: 'normal' as Mode, pairUp: false };
  const waiting: (() => void)[] = [];
  let pairs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.on('close', () => {
        if (!res.writableFinished) abandoned++;
      });
      if (req.url === '/openapi.json') return json(res, 200, spec);
      if (req.url === '/openapi-foreign.json') {
        // The same document with its external $ref on another origin (localhost, same port).
        const port = (req.headers.host ?? '').split(':')[1] ?? '';
        const ref = `http://localhost:${port}/petstore-common.json#/Error`;
        return json(
          res,
          200,
          JSON.parse(JSON.stringify(spec).replace('./petstore-common.json#/Error', ref)),
        );
      }
      if (req.url === '/openapi-never.json') return; // never answered (closed with the server)
      if (req.url === '/petstore-common.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(common);
      }
      if (!(req.url ?? '').startsWith('/v1/'))
        return json(res, 404, { code: 404, message: 'not found' });
      if (req.headers.authorization !== `Bearer ${TOKEN}`)
        return json(res, 401, { code: 401, message: 'missing or wrong bearer token' });
      if (state.mode !== 'normal') return misbehave(state.mode, req, res);
      if (!state.pairUp) return route(req, res, body);
      const answer = (): void => route(req, res, body);
      const first = waiting.shift();
      if (first === undefined) {
        // Released alone only if no second request comes at all (the test then fails on `pairs`).
        const timer = setTimeout(() => answer(), 10_000);
        waiting.push(() => (clearTimeout(timer), answer()));
      } else {
        pairs++;
        first();
        answer();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    get mode() {
      return state.mode;
    },
    set mode(m: Mode) {
      state.mode = m;
    },
    get pairUp() {
      return state.pairUp;
    },
    set pairUp(on: boolean) {
      state.pairUp = on;
    },
    get pairs() {
      return pairs;
    },
    requests,
    get abandoned() {
      return abandoned;
    },
    get hugeBytes() {
      return hugeBytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
