import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/server/index.js';
import { Counter, Gauge, Histogram, MetricsRegistry } from '../../src/server/prometheus.js';

describe('Prometheus exposition', () => {
  it('writes counters with sorted, escaped labels, gauges, and cumulative histograms', () => {
    const r = new MetricsRegistry();
    const c = r.add(new Counter('x_total', 'A counter.\nSecond line.'));
    c.inc({ b: '2', a: 'q"uo\\te\n' });
    c.inc({ b: '2', a: 'q"uo\\te\n' }, 2);
    c.inc();
    r.add(new Gauge('g', 'A gauge.', () => 7));
    const h = r.add(new Histogram('h_seconds', 'A histogram.', [1, 0.1]));
    h.observe(0.05);
    h.observe(0.5);
    h.observe(3);
    expect(r.render()).toBe(
      [
        '# HELP x_total A counter.\\nSecond line.',
        '# TYPE x_total counter',
        'x_total 1',
        'x_total{a="q\\"uo\\\\te\\n",b="2"} 3',
        '# HELP g A gauge.',
        '# TYPE g gauge',
        'g 7',
        '# HELP h_seconds A histogram.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.1"} 1',
        'h_seconds_bucket{le="1"} 2',
        'h_seconds_bucket{le="+Inf"} 3',
        'h_seconds_sum 3.55',
        'h_seconds_count 3',
        '',
      ].join('\n'),
    );
    expect(c.get({ a: 'q"uo\\te\n', b: '2' })).toBe(3);
  });
});

describe('isLoopbackHost', () => {
  it('accepts loopback names and addresses only', () => {
    for (const h of [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
      'localhost',
      'LOCALHOST',
      'api.localhost',
      '::ffff:127.0.0.1',
      '[::ffff:7f00:1]',
      'foo.localhost.',
    ])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of [
      '0.0.0.0',
      '::',
      '192.168.1.2',
      'example.com',
      'localhost.example.com',
      '128.0.0.1',
      '127.attacker.example',
      '127.0.0.1.nip.io',
      '::ffff:10.0.0.1',
      '.localhost',
      '',
    ])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});
