/** One autocannon instance over a list of programs, tallying every answer by program and outcome. */
import autocannon from 'autocannon';
import { classify, type Answer } from './classify.js';
import type { Program } from './programs.js';
import type { Tenant } from './tenants.js';

/** A program sent by one tenant. */
export interface Shot {
  tenant: Tenant;
  program: Program;
}

/** What one group (benign or hostile) saw. */
export interface GroupTally {
  /** Answers by program name, then by `outcome[:kind]`. */
  byProgram: Record<string, Record<string, number>>;
  /** Answers by outcome (all programs). */
  byOutcome: Record<string, number>;
  /** Call ids of every 200 ToolResult (for the audit check). */
  callIds: string[];
  /** Response times (ms) of answers with status 200, in arrival order. */
  latenciesMs: number[];
  /** Connection errors (resets, refused connections) and request timeouts, from autocannon. */
  errors: number;
  timeouts: number;
  /** Answers in total. */
  answers: number;
}

/** A running group: `stop()` ends it early; `done` resolves with the tally. */
export interface Group {
  stop(): void;
  done: Promise<GroupTally>;
}

const bump = (record: Record<string, number>, key: string): void => {
  record[key] = (record[key] ?? 0) + 1;
};

const answerKey = (a: Answer): string =>
  a.kind === undefined ? a.outcome : `${a.outcome}:${a.kind}`;

/** Options of {@link drive}. */
export interface DriveOptions {
  url: string;
  shots: readonly Shot[];
  connections: number;
  durationSec: number;
  /** Seconds before a request counts as timed out. */
  timeoutSec: number;
}

/** Sends `shots` round-robin on every connection for `durationSec` (autocannon in this process). */
export function drive(options: DriveOptions): Group {
  const tally: GroupTally = {
    byProgram: {},
    byOutcome: {},
    callIds: [],
    latenciesMs: [],
    errors: 0,
    timeouts: 0,
    answers: 0,
  };
  const requests: autocannon.Request[] = options.shots.map(({ tenant, program }) => ({
    method: 'POST',
    path: '/v1/run',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.key}` },
    body: JSON.stringify({ code: program.code, description: `${program.name} (${tenant.name})` }),
    onResponse: (status, body, _context, headers) => {
      const answer = classify(status, body, headers['retry-after'] !== undefined);
      tally.answers++;
      bump((tally.byProgram[program.name] ??= {}), answerKey(answer));
      bump(tally.byOutcome, answer.outcome);
      if (answer.callId !== undefined) tally.callIds.push(answer.callId);
    },
  }));
  let instance: autocannon.Instance | undefined;
  const done = new Promise<GroupTally>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSec,
        timeout: options.timeoutSec,
        pipelining: 1,
        requests,
      },
      (error, result) => {
        if (error) return reject(error);
        tally.errors = result.errors;
        tally.timeouts = result.timeouts;
        resolve(tally);
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status === 200) tally.latenciesMs.push(ms);
    });
  });
  return { stop: () => instance?.stop(), done };
}
