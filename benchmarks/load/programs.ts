/**
 * The programs of the load test: benign ones (what a tenant's normal traffic looks like) and the
 * hostile classes of issue 10 that a run must not turn into a server crash, a bloated server or a
 * failed run of the other tenant. The hostile suite (test/hostile) runs the same table.
 */

/** A program sent as the body of `POST /v1/run`. */
export interface Program {
  name: string;
  code: string;
}

/** A hostile program and what the service should answer to it. */
export interface HostileProgram extends Program {
  /** The class of issue 10 item 5 it belongs to. */
  class: string;
  /**
   * The correct answers besides `OVERLOADED`: `CODE_RUN_FAILED` kinds, and `ok` where the run may
   * also succeed (what matters then is that the host survives and stays within its budget).
   */
  kinds: readonly string[];
}

/** Benign programs of one tenant: kv round trips under the tenant's own keys, text tools, compute. */
export function benignPrograms(tenant: string): Program[] {
  return [
    {
      name: 'kv-roundtrip',
      code: `const key = '${tenant}-' + Math.floor(Math.random() * 50);
await tools.kv.set({ key, value: { tenant: '${tenant}', n: key.length } });
const got = await tools.kv.get({ key });
return got.found;`,
    },
    {
      name: 'text-parallel',
      code: `const texts = ['alpha beta', 'gamma delta epsilon', 'zeta'];
const counts = await Promise.all(texts.map((text) => tools.text.word_count({ text })));
console.log('counted', counts.length);
return counts.map((c) => c.words);`,
    },
    {
      name: 'compute',
      code: `let acc = 0;
for (let i = 0; i < 20000; i++) acc = (acc + i * i) % 1000003;
return { acc, tenant: '${tenant}' };`,
    },
  ];
}

const NEST_DEPTH = 20_000; // ≈ 40 KB of brackets: well under the 1 MiB body cap

/** The hostile mix of the load test (issue 10 items 1–3): each class once. */
export const HOSTILE_PROGRAMS: readonly HostileProgram[] = [
  { class: 'cpu', name: 'cpu-spin', code: 'while (true) {}', kinds: ['timeout'] },
  {
    class: 'last-resort-oom',
    name: 'array-fill-5e7',
    code: 'const a = new Array(5e7).fill(0);\nreturn a.length;',
    kinds: ['memory', 'timeout'],
  },
  {
    class: 'stack-overflowing-source',
    name: 'bracket-nest-40kb',
    code: `return ${'['.repeat(NEST_DEPTH)}${']'.repeat(NEST_DEPTH)};`,
    kinds: ['ok', 'syntax', 'typecheck', 'exception'],
  },
  {
    class: 'queued-argument-flood',
    name: 'nested-calls-large-args',
    code: `const text = 'word '.repeat(100_000);
const all = await Promise.all(Array.from({ length: 400 }, () => tools.text.word_count({ text })));
return all.length;`,
    kinds: ['ok', 'exception', 'memory', 'timeout'],
  },
  {
    class: 'native-memory',
    name: 'intl-churn',
    code: `const keep: object[] = [];
for (let i = 0; i < 200_000; i++) {
  keep.push(new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'full' }));
  keep.push(new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }));
}
return keep.length;`,
    kinds: ['memory', 'timeout'],
  },
  {
    class: 'resizable-buffer',
    name: 'resizable-arraybuffer-growth',
    code: `type Resizable = ArrayBuffer & { resize(n: number): void };
const AB = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable;
const held: Resizable[] = [];
for (let i = 0; i < 4; i++) {
  const b = new AB(0, { maxByteLength: 2 ** 31 });
  b.resize(2 ** 29);
  new Uint8Array(b).fill(1);
  held.push(b);
}
return held.length;`,
    kinds: ['memory', 'timeout', 'exception'],
  },
];

/**
 * Hostile programs that do not take the server down today (before the sandbox moves out of the host
 * process): the `safe` mix of the load test. Only the names: the table above owns the programs.
 */
export const SURVIVABLE_TODAY: ReadonlySet<string> = new Set(['cpu-spin', 'intl-churn']);
