/**
 * The TypeScript programs every engine runs, and the values they must return. Programs see
 * a global `tools` object (`tools.kv.get({ key })`), may use `console`, and `return` a value.
 */
import type { BenchCatalog } from '../engines/types.js';

/** A known program with a literal expected value: the self-check of every engine. */
export const CHECK_PROGRAM = `
const first = await tools.math.add({ a: 2, b: 3 });
const [second, missing] = await Promise.all([
  tools.math.add({ a: first.sum, b: 10 }),
  tools.kv.get({ key: 'self-check:missing' }),
]);
const doubled: number = second.sum * 2;
return { sum: first.sum, doubled, missing: missing.value };
`;

/** What {@link CHECK_PROGRAM} returns. */
export const CHECK_EXPECTED = { sum: 5, doubled: 30, missing: null };

const REALISTIC_HEAD = `// Summarise a customer's recent orders and cache the summary.
interface OrderHit {
  id: string;
  score: number;
  total: number;
}
interface Summary {
  user: string;
  tier: string;
  count: number;
  top: string[];
  spend: number;
}

const customerId: string = 'u-42';
const user = await tools.users.get({ id: customerId });
const hits = await tools.orders.search({ query: \`customer:\${user.id}\`, limit: 12 });
const relevant: OrderHit[] = hits.items.filter((hit: OrderHit) => hit.score >= 0.25);

let spend = 0;
for (const order of relevant) {
  spend += order.total;
}
const ranked = [...relevant].sort((a, b) => b.total - a.total);
`;

const REALISTIC_TAIL = `const summary: Summary = {
  user: user.name,
  tier: user.tier,
  count: relevant.length,
  top: ranked.slice(0, 3).map((order) => order.id),
  spend: Math.round(spend * 100) / 100,
};

const saved = await tools.kv.set({ key: \`summary:\${user.id}\`, value: JSON.stringify(summary) });
console.log(\`summarised \${summary.count} of \${hits.total} orders\`);
return { ...summary, saved: saved.ok };
`;

/** The realistic program of scenario 2: 35 lines, 3 tool calls, some typed data shaping. */
export const REALISTIC_PROGRAM = REALISTIC_HEAD + REALISTIC_TAIL;

interface Hit {
  id: string;
  score: number;
  total: number;
}

/** Computes what {@link REALISTIC_PROGRAM} returns by calling the catalog's tool bodies directly. */
export function realisticExpected(catalog: BenchCatalog): unknown {
  const tool = (name: string) => {
    const found = catalog.tools.find((t) => t.name === name);
    if (found === undefined) throw new Error(`catalog lacks ${name}`);
    return found;
  };
  const user = tool('users.get').execute({ id: 'u-42' }) as {
    id: string;
    name: string;
    tier: string;
  };
  const hits = tool('orders.search').execute({ query: `customer:${user.id}`, limit: 12 }) as {
    items: Hit[];
  };
  const relevant = hits.items.filter((hit) => hit.score >= 0.25);
  const spend = relevant.reduce((sum, order) => sum + order.total, 0);
  const ranked = [...relevant].sort((a, b) => b.total - a.total);
  return {
    user: user.name,
    tier: user.tier,
    count: relevant.length,
    top: ranked.slice(0, 3).map((order) => order.id),
    spend: Math.round(spend * 100) / 100,
    saved: true,
  };
}

/** A program making `calls` sequential `kv.get` calls; returns `calls`. */
export function sequentialProgram(calls: number): string {
  return `let found = 0;
for (let i = 0; i < ${calls}; i++) {
  const entry = await tools.kv.get({ key: \`k\${i % 8}\` });
  if (entry.key.length > 0) found += 1;
}
return found;
`;
}

/** A program making `calls` `kv.get` calls in `Promise.all` batches of `batch`; returns `calls`. */
export function batchedProgram(calls: number, batch: number): string {
  return `let found = 0;
for (let start = 0; start < ${calls}; start += ${batch}) {
  const size = Math.min(${batch}, ${calls} - start);
  const entries = await Promise.all(
    Array.from({ length: size }, (_, j) => tools.kv.get({ key: \`k\${(start + j) % 8}\` })),
  );
  found += entries.filter((entry) => entry.key.length > 0).length;
}
return found;
`;
}

/**
 * The realistic program grown to about `lines` lines with typed helper functions that it
 * calls (more to type-check, transpile and run; still 3 tool calls).
 */
export function sizedProgram(lines: number): string {
  const base = REALISTIC_PROGRAM.split('\n').length;
  const helpers = Math.max(0, Math.ceil((lines - base - 1) / 7));
  const blocks = Array.from(
    { length: helpers },
    (_, k) => `function weigh${k}(orders: OrderHit[], factor: number): number {
  let acc = 0;
  for (const order of orders) acc += order.total * factor + ${k};
  return Math.round(acc);
}
const weighed${k}: number = weigh${k}(relevant, ${(1 + k / 100).toFixed(2)});
spend += weighed${k} * 0;`,
  );
  return REALISTIC_HEAD + (blocks.length > 0 ? `${blocks.join('\n')}\n` : '') + REALISTIC_TAIL;
}
