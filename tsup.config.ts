import { defineConfig } from 'tsup';

// Every public entry is built twice: ESM (`.js`, the package is "type": "module") and CommonJS
// (`.cjs`) for `require('isocode')`. `shims` gives the CJS build its `import.meta.url`; p-queue is
// ESM-only, so it is bundled rather than required from CJS (decision record 013).
const entries = {
  index: 'src/index.ts',
  testing: 'src/testing.ts',
  sources: 'src/sources/index.ts',
  server: 'src/server/index.ts',
  mcp: 'src/mcp/index.ts',
};

export default defineConfig({
  // The sandbox worker's entry is started by path (src/sandbox/worker/spawn.ts), never imported.
  entry: { ...entries, cli: 'src/cli/main.ts', 'sandbox-worker': 'src/sandbox/worker/main.ts' },
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'node',
  dts: { entry: entries },
  shims: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  external: ['isolated-vm', 'typescript-native', 'oxc-transform', 'tsx'],
  noExternal: ['p-queue'],
});
