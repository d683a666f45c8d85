/**
 * The console's event reader against a real HTTP server: it sends the key as a bearer header, and
 * after a dropped connection it resumes with Last-Event-ID, so no event is lost or repeated.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, ApiError } from '../../console/src/api.js';

let server: Server;
let base = '';
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    if (req.url === '/v1/runs/gone/events') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { code: 'NOT_FOUND', message: 'no run with this id in your scope' },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const last = Number(req.headers['last-event-id'] ?? 0);
    if (last === 0) {
      // Two events, the second cut in half: then the connection drops.
      res.write(
        'retry: 50\n\nid: 1\nevent: log\ndata: {"text":"one"}\n\nid: 2\nevent: call-start\ndata: {"na',
      );
      setTimeout(() => res.socket?.destroy(), 50);
    } else {
      const rest = [
        { id: 2, event: 'call-start', data: { name: 'kv.put' } },
        { id: 3, event: 'result', data: { status: 'succeeded' } },
      ].filter((e) => e.id > last);
      res.end(
        rest
          .map((e) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`)
          .join(''),
      );
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("the console's event reader", () => {
  it('resumes after a dropped connection with Last-Event-ID and the key, losing and repeating nothing', async () => {
    const api = new Api('the-key', base);
    const events: string[] = [];
    const states: string[] = [];
    const controller = new AbortController();
    await api.followEvents(
      'r1',
      (e) => {
        events.push(`${e.lastEventId}:${e.type}:${e.data}`);
        return e.type === 'result' ? 'stop' : undefined;
      },
      (state) => states.push(state),
      controller.signal,
    );
    expect(events).toEqual([
      '1:log:{"text":"one"}',
      '2:call-start:{"name":"kv.put"}',
      '3:result:{"status":"succeeded"}',
    ]);
    expect(states).toEqual(['live', 'reconnecting', 'live', 'closed']);
    const streams = seen.filter((h) => h.accept === 'text/event-stream');
    expect(streams.map((h) => h['last-event-id'])).toEqual([undefined, '1']);
    expect(streams.every((h) => h.authorization === 'Bearer the-key')).toBe(true);
  });

  it('stops at a refusal (a run of another scope is 404) and reports it', async () => {
    const states: [string, unknown][] = [];
    await new Api('k', base).followEvents(
      'gone',
      () => undefined,
      (s, e) => states.push([s, e]),
      new AbortController().signal,
    );
    expect(states).toHaveLength(1);
    expect(states[0]![0]).toBe('closed');
    expect(states[0]![1]).toBeInstanceOf(ApiError);
    expect((states[0]![1] as ApiError).code).toBe('NOT_FOUND');
  });
});
