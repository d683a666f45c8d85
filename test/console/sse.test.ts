import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../console/src/sse.js';

const all = (chunks: string[], last = ''): { events: SseEvent[]; parser: SseParser } => {
  const parser = new SseParser(last);
  return { events: chunks.flatMap((c) => parser.feed(c)), parser };
};

describe("the console's event-stream parser", () => {
  it('dispatches events with their type, data and id; skips comments', () => {
    const { events, parser } = all([
      ': ping\n\nid: 1\nevent: log\ndata: {"text":"a"}\n\n',
      'id: 2\ndata: one\ndata: two\n\nretry: 3000\n\n',
    ]);
    expect(events).toEqual([
      { type: 'log', data: '{"text":"a"}', lastEventId: '1' },
      { type: 'message', data: 'one\ntwo', lastEventId: '2' },
    ]);
    expect(parser.lastEventId).toBe('2');
    expect(parser.retryMs).toBe(3000);
  });

  it('gives the same events however the stream is cut, with any line ends', () => {
    const stream = 'id: 7\r\nevent: call-end\r\ndata: x\r\n\r\nid: 8\rdata:y\r\rid: 9\ndata: z\n\n';
    const whole = all([stream]).events;
    expect(whole.map((e) => [e.lastEventId, e.type, e.data])).toEqual([
      ['7', 'call-end', 'x'],
      ['8', 'message', 'y'],
      ['9', 'message', 'z'],
    ]);
    for (let cut = 1; cut < stream.length; cut++)
      expect(all([stream.slice(0, cut), stream.slice(cut)]).events).toEqual(whole);
    expect(all([...stream]).events).toEqual(whole);
  });

  it('keeps an event incomplete until its blank line, and resumes from a given id', () => {
    const parser = new SseParser('41');
    expect(parser.feed('event: log\ndata: half')).toEqual([]);
    expect(parser.lastEventId).toBe('41');
    expect(parser.feed('\n\n')).toEqual([{ type: 'log', data: 'half', lastEventId: '41' }]);
  });

  it('resumes from the last dispatched event, not from the id of one cut off mid-way', () => {
    const parser = new SseParser();
    parser.feed('id: 1\ndata: a\n\nid: 2\ndata: hal');
    expect(parser.lastEventId).toBe('1');
  });
});
