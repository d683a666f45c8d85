/**
 * A small Prometheus text exposition writer (format 0.0.4): counters, gauges and histograms with
 * labels. Written by hand: the service needs a handful of series, not a client library.
 */

/** Label names to values. */
export type Labels = Readonly<Record<string, string>>;

/** The content type of the exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeLabel = (v: string): string =>
  v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

const labelKey = (labels: Labels): string =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k]!)}"`)
    .join(',');

const formatValue = (v: number): string =>
  Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v);

const series = (name: string, key: string, value: number): string =>
  `${name}${key === '' ? '' : `{${key}}`} ${formatValue(value)}`;

interface Metric {
  render(): string[];
}

/** A monotonically increasing counter. */
export class Counter implements Metric {
  readonly #values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    this.#values.set(key, (this.#values.get(key) ?? 0) + by);
  }

  /** The current value of one series (0 when never incremented). */
  get(labels: Labels = {}): number {
    return this.#values.get(labelKey(labels)) ?? 0;
  }

  render(): string[] {
    const out = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} counter`];
    for (const [key, v] of [...this.#values].sort(([a], [b]) => (a < b ? -1 : 1)))
      out.push(series(this.name, key, v));
    return out;
  }
}

/** A gauge read when the exposition is written. */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly read: () => number,
  ) {}

  render(): string[] {
    return [
      `# HELP ${this.name} ${escapeHelp(this.help)}`,
      `# TYPE ${this.name} gauge`,
      series(this.name, '', this.read()),
    ];
  }
}

/** A cumulative histogram with fixed upper bounds. */
export class Histogram implements Metric {
  readonly #series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();
  readonly buckets: readonly number[];
  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
  ) {
    this.buckets = [...buckets].sort((a, b) => a - b);
  }

  observe(value: number, labels: Labels = {}): void {
    const key = labelKey(labels);
    let s = this.#series.get(key);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  render(): string[] {
    const out = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const [key, s] of [...this.#series].sort(([a], [b]) => (a < b ? -1 : 1))) {
      this.buckets.forEach((le, i) =>
        out.push(
          series(
            `${this.name}_bucket`,
            labelKey({ ...s.labels, le: formatValue(le) }),
            s.counts[i]!,
          ),
        ),
      );
      out.push(series(`${this.name}_bucket`, labelKey({ ...s.labels, le: '+Inf' }), s.count));
      out.push(series(`${this.name}_sum`, key, s.sum));
      out.push(series(`${this.name}_count`, key, s.count));
    }
    return out;
  }
}

/** A set of metrics rendered together. */
export class MetricsRegistry {
  readonly #metrics: Metric[] = [];

  add<M extends Metric>(metric: M): M {
    this.#metrics.push(metric);
    return metric;
  }

  /** The exposition text (ends with a newline). */
  render(): string {
    return `${this.#metrics.flatMap((m) => m.render()).join('\n')}\n`;
  }
}

/** A summary read when the exposition is written: quantile series, `_sum` and `_count`. */
export class Summary implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly read: () => {
      quantiles: Readonly<Record<string, number>>;
      sum: number;
      count: number;
    },
  ) {}

  render(): string[] {
    const v = this.read();
    return [
      `# HELP ${this.name} ${escapeHelp(this.help)}`,
      `# TYPE ${this.name} summary`,
      ...Object.entries(v.quantiles).map(([q, x]) =>
        series(this.name, labelKey({ quantile: q }), x),
      ),
      series(`${this.name}_sum`, '', v.sum),
      series(`${this.name}_count`, '', v.count),
    ];
  }
}
