// The part of autocannon's programmatic API the load test uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      onResponse?: (
        status: number,
        body: string,
        context: Record<string, unknown>,
        headers: Record<string, string | string[]>,
      ) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      /** Seconds before a request counts as timed out (and its connection is reset). */
      timeout?: number;
      pipelining?: number;
      requests?: Request[];
    }
    interface Stats {
      average: number;
      p50: number;
      p99: number;
      max: number;
    }
    interface Result {
      latency: Stats;
      requests: Stats;
      errors: number;
      timeouts: number;
      resets: number;
      non2xx: number;
      duration: number;
      statusCodeStats: Record<string, { count: number }>;
    }
    interface Instance extends EventEmitter {
      stop(): void;
    }
  }
  function autocannon(
    options: autocannon.Options,
    callback: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;
  export = autocannon;
}
