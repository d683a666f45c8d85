import { defineConfig } from 'tsup';
import { writeThirdPartyNotices } from './scripts/third-party-notices.js';

// Every public entry is built twice: ESM (`.js`, the package is "type": "module") and CommonJS
// (`.cjs`) for `require('isocode')`. `shims` gives the CJS build its `import.meta.url`; p-queue is
// ESM-only, so it is bundled rather than required from CJS (decision record 013).
const entries = {
  index: 'src/index.ts',
  testing: 'src/testing.ts',
  sources: 'src/sources/index.ts',
  server: 'src/server/index.ts',
  mcp: 'src/mcp/index.ts',
  // Durable runs (a run store, background runs, parked approvals) and their tracing.
  durable: 'src/durable/index.ts',
  // Framework adapters (decision record 031): each framework is an optional peer, never bundled.
  ai: 'src/adapters/ai-sdk.ts',
  'openai-agents': 'src/adapters/openai-agents.ts',
  langchain: 'src/adapters/langchain.ts',
};

export default defineConfig([
  {
    // The sandbox worker's entry is started by path (src/sandbox/worker/spawn.ts), never imported.
    entry: {
      ...entries,
      cli: 'src/cli/main.ts',
      'sandbox-worker': 'src/sandbox/worker/main.ts',
      // The launcher's addon check (bin/isocode.js), before it loads the CLI.
      addon: 'src/sandbox/worker/addon.ts',
    },
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'node',
    dts: { entry: entries },
    shims: true,
    // No sourcemaps: the build is not minified (stack traces read as they are) and the maps were 60 % of
    // the unpacked package (issue 27).
    sourcemap: false,
    // dist/console/ is the console build's own (below): cleaned by it, not raced by this one.
    clean: ['!console/**'],
    splitting: true,
    // Dependencies and peers are external by default; the packages loaded lazily (decision 038) are
    // named as well, so that a move between dependency kinds can never bundle one into a chunk.
    external: [
      'isolated-vm',
      'oxc-transform',
      'tsx',
      '@modelcontextprotocol/sdk',
      'hono',
      '@hono/node-server',
      'better-sqlite3',
    ],
    // TypeScript 7's API client is bundled, its compiler binary is not (decision 038): the client's
    // package is `typescript@7`, whose `tsc` bin npm would link into the app's node_modules/.bin over
    // the app's own TypeScript; the platform packages (`@typescript/typescript-<os>-<arch>`, the
    // binary and its lib files) are this package's optional dependencies.
    noExternal: ['p-queue', 'typescript-native'],
    // The client's own binary lookup (`#getExePath`) reads the manifest of the package it is in and
    // uses `import.meta.resolve`, a syntax error in the CommonJS build; isocode always passes the
    // command (compilerCommand), so the lookup is replaced by one that says so.
    esbuildPlugins: [
      {
        name: 'isocode-no-compiler-lookup',
        setup(build) {
          build.onResolve({ filter: /^#getExePath$/ }, () => ({
            path: 'getExePath',
            namespace: 'isocode-stub',
          }));
          build.onLoad({ filter: /.*/, namespace: 'isocode-stub' }, () => ({
            contents:
              "export default function getExePath() { throw new Error('isocode passes the compiler command to the TypeScript API client (compilerCommand)'); }",
            loader: 'js',
          }));
        },
      },
    ],
    // The licenses of what was bundled, shipped beside it.
    onSuccess: async () => writeThirdPartyNotices(process.cwd()),
    // The client's vendored JSON-RPC library is CommonJS and requires Node's modules: in the ESM
    // build those calls need a `require`.
    banner: ({ format }) =>
      format === 'esm'
        ? {
            js: "import { createRequire as __isocodeRequire } from 'node:module'; const require = __isocodeRequire(import.meta.url);",
          }
        : {},
    // Which build a module is in: src/sources/module.ts keeps a native import() in the CJS one.
    esbuildOptions(options, { format }) {
      options.define = { ...options.define, __ISOCODE_CJS__: String(format === 'cjs') };
    },
  },
  // The web console (decision record 023): one browser bundle plus the page and its stylesheet,
  // served by `isocode serve --console` from dist/console/.
  {
    entry: { console: 'console/src/main.ts' },
    outDir: 'dist/console',
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    tsconfig: 'console/tsconfig.json',
    publicDir: 'console/public',
    minify: true,
    sourcemap: false,
    dts: false,
    clean: true,
    splitting: false,
  },
]);
