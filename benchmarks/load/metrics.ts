/** Reading the service's Prometheus `/metrics` text: the figures the load report quotes. */

/** One sample: series name, labels, value. */
export interface Sample {
  name: string;
  labels: string;
  value: number;
}

/** Parses Prometheus text exposition (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = /^([A-Za-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match) out.push({ name: match[1]!, labels: match[2] ?? '', value: Number(match[3]) });
  }
  return out;
}

/** Sum of every series whose name matches `pattern`, or undefined when there is none. */
export function sumSeries(samples: readonly Sample[], pattern: RegExp): number | undefined {
  const hits = samples.filter((s) => pattern.test(s.name));
  return hits.length === 0 ? undefined : hits.reduce((a, s) => a + s.value, 0);
}

/** Sandbox worker restarts: any counter named like `*worker*restart*` (absent before workers exist). */
export const WORKER_RESTARTS = /worker.*restart|restart.*worker/i;

/** GETs `/metrics` from a base URL; undefined when the server does not answer. */
export async function scrapeMetrics(baseUrl: string): Promise<Sample[] | undefined> {
  try {
    const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? parseMetrics(await res.text()) : undefined;
  } catch {
    return undefined;
  }
}
