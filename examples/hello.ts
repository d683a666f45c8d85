// isocode's hello world: a run_code program written against the built-in demo tools (kv.*, text.*).
// Run it with no config at all:        npx isocode run examples/hello.ts
// Type-check it without running it:    npx isocode check examples/hello.ts
// See the SDK it is checked against:   npx isocode sdk
//
// It is the body of an async function checked by isocode against the SDK, not a module of this
// project: tsconfig.json and eslint.config.js exclude it.
const poem = `Tools return promises,
programs await them together,
and the sandbox keeps the rest.`;

// Independent calls run together: one await, three tool calls.
const [counts, title, lines] = await Promise.all([
  tools.text.word_count({ text: poem }),
  tools.text.transform({ text: 'hello from isocode', mode: 'title' }),
  tools.text.split_lines({ text: poem, trim: true }),
]);

// State lives in the key-value store, not in the program.
for (const [i, line] of lines.lines.entries()) {
  await tools.kv.set({ key: `poem/${i + 1}`, value: line });
}
const stored = await tools.kv.list({ prefix: 'poem/' });
const hits = await tools.text.search({ text: poem, query: 'the', caseSensitive: false });

console.log(`${title.text}!`);
console.log(`The poem has ${counts.words} words on ${counts.lines} lines.`);
console.log(`Stored ${stored.total} lines under poem/; "the" appears ${hits.count} times.`);

return { title: title.text, words: counts.words, keys: stored.keys };
