/** A small dependency-free SVG line chart (linear or log axes), for the scale curves. */

/** One line of the chart. Points with a non-finite or (on a log axis) non-positive value are skipped. */
export interface ChartSeries {
  name: string;
  points: ReadonlyArray<{ x: number; y: number }>;
}

/** Options for {@link lineChart}. */
export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly ChartSeries[];
  /** @default 720 */
  width?: number;
  /** @default 420 */
  height?: number;
  /** @default false */
  logX?: boolean;
  /** @default false */
  logY?: boolean;
}

const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
];
const MARGIN = { top: 40, right: 170, bottom: 52, left: 70 };

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function fmt(value: number): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1000) return `${Number((value / 1000).toPrecision(3))}k`;
  if (abs >= 1) return String(Number(value.toPrecision(3)));
  return String(Number(value.toPrecision(2)));
}

function linearTicks(min: number, max: number, count = 5): number[] {
  const span = max - min || Math.abs(max) || 1;
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw) || 1;
  const ticks: number[] = [];
  const last = Math.ceil(max / step - 1e-9) * step;
  for (let t = Math.floor(min / step) * step; t <= last + step * 1e-9; t += step)
    ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** The nearest 1-2-5 step at or below (`down`) or at or above `value`. */
function niceLog(value: number, down: boolean): number {
  const e = Math.floor(Math.log10(value));
  const steps = [1, 2, 5, 10].map((m) => m * 10 ** e);
  if (down) return [...steps].reverse().find((s) => s <= value * 1.0001) ?? steps[0] ?? value;
  return steps.find((s) => s >= value / 1.0001) ?? value;
}

function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const t = m * 10 ** e;
      if (t >= min / 1.0001 && t <= max * 1.0001) ticks.push(t);
    }
  }
  return ticks;
}

interface Axis {
  toPixel(value: number): number;
  ticks: number[];
}

function makeAxis(
  values: number[],
  log: boolean,
  from: number,
  to: number,
  exactTicks: boolean,
): Axis {
  const usable = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  let min = usable.length > 0 ? Math.min(...usable) : 1;
  let max = usable.length > 0 ? Math.max(...usable) : 10;
  if (!log && !exactTicks) min = Math.min(0, min);
  if (min === max) {
    min = log ? min / 2 : min - 1;
    max = log ? max * 2 : max + 1;
  }
  if (log && !exactTicks) {
    min = niceLog(min, true);
    max = niceLog(max, false);
  }
  const ticks = exactTicks
    ? [...new Set(usable)].sort((a, b) => a - b)
    : log
      ? logTicks(min, max)
      : linearTicks(min, max);
  if (!exactTicks && !log) {
    min = Math.min(min, ticks[0] ?? min);
    max = Math.max(max, ticks[ticks.length - 1] ?? max);
  }
  const t = (v: number): number => (log ? Math.log10(v) : v);
  const lo = t(min);
  const hi = t(max);
  return { toPixel: (v) => from + ((t(v) - lo) / (hi - lo)) * (to - from), ticks };
}

/** Renders a line chart as a standalone SVG document. */
export function lineChart(options: LineChartOptions): string {
  const width = options.width ?? 720;
  const height = options.height ?? 420;
  const left = MARGIN.left;
  const right = width - MARGIN.right;
  const top = MARGIN.top;
  const bottom = height - MARGIN.bottom;
  const logX = options.logX ?? false;
  const logY = options.logY ?? false;
  const keep = (p: { x: number; y: number }): boolean =>
    Number.isFinite(p.x) && Number.isFinite(p.y) && (!logX || p.x > 0) && (!logY || p.y > 0);
  const series = options.series.map((s) => ({ name: s.name, points: s.points.filter(keep) }));
  const xAxis = makeAxis(
    series.flatMap((s) => s.points.map((p) => p.x)),
    logX,
    left,
    right,
    true,
  );
  const yAxis = makeAxis(
    series.flatMap((s) => s.points.map((p) => p.y)),
    logY,
    bottom,
    top,
    false,
  );
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  for (const tick of yAxis.ticks) {
    const y = yAxis.toPixel(tick).toFixed(1);
    out.push(`<line x1="${left}" x2="${right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${fmt(tick)}</text>`,
    );
  }
  for (const tick of xAxis.ticks) {
    const x = xAxis.toPixel(tick).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${x}" y="${bottom + 16}" text-anchor="middle">${fmt(tick)}</text>`);
  }
  out.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${bottom}" stroke="#333"/>`);
  out.push(`<line x1="${left}" x2="${right}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`);
  out.push(
    `<text x="${(left + right) / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
  );
  out.push(
    `<text x="16" y="${(top + bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(top + bottom) / 2})">${escapeXml(options.yLabel)}</text>`,
  );
  series.forEach((s, index) => {
    const color = PALETTE[index % PALETTE.length] ?? '#000';
    const coords = s.points.map(
      (p) => `${xAxis.toPixel(p.x).toFixed(1)},${yAxis.toPixel(p.y).toFixed(1)}`,
    );
    if (coords.length > 1)
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${coords.join(' ')}"/>`,
      );
    for (const c of coords) {
      const [cx, cy] = c.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${color}"/>`);
    }
    const ly = top + 10 + index * 18;
    out.push(
      `<line x1="${right + 14}" x2="${right + 34}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
    );
    out.push(
      `<text x="${right + 40}" y="${ly}" dominant-baseline="middle">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
