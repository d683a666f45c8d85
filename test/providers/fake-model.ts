/**
 * A scripted model API on 127.0.0.1 for the official SDK clients: each POST gets the next reply of
 * the script (a function of the request body); every request body is kept for the test to read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted turn: the request body in, the JSON reply out. */
export type Turn = (body: Record<string, unknown>) => unknown;

/** A started fake model API. */
export interface FakeModel {
  url: string;
  /** Each request as received: its path and parsed body. */
  requests: { path: string; body: Record<string, unknown> }[];
  close: () => Promise<void>;
}

/** Starts a fake model API that answers POSTs with `script`, in order; past its end, 500. */
export async function fakeModel(script: Turn[]): Promise<FakeModel> {
  const requests: FakeModel['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // a non-JSON body is recorded as {}
      }
      requests.push({ path: req.url ?? '', body });
      const turn = script[requests.length - 1];
      let reply: unknown;
      try {
        reply = turn ? turn(body) : { error: { message: 'the script has ended' } };
      } catch (error) {
        reply = { error: { message: error instanceof Error ? error.message : String(error) } };
      }
      const failed = !turn || (typeof reply === 'object' && reply !== null && 'error' in reply);
      res.writeHead(failed ? 400 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
