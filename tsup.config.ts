import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing.ts',
    sources: 'src/sources/index.ts',
    server: 'src/server/index.ts',
    mcp: 'src/mcp/index.ts',
    cli: 'src/cli/main.ts',
    'sandbox-worker': 'src/sandbox/worker/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: {
    entry: {
      index: 'src/index.ts',
      testing: 'src/testing.ts',
      sources: 'src/sources/index.ts',
      server: 'src/server/index.ts',
      mcp: 'src/mcp/index.ts',
    },
  },
  sourcemap: true,
  clean: true,
  splitting: true,
  external: ['isolated-vm', 'typescript-native', 'oxc-transform', 'tsx'],
});
