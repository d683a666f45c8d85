import { configDefaults, defineConfig } from 'vitest/config';

// isolated-vm on Node 20+ needs --no-node-snapshot; the runner passes it to every test worker.
// test/hostile/pending-*.test.ts hold hostile cases today's server fails (some crash it); they run
// only with ISOCODE_HOSTILE_PENDING=1 until the sandbox-process work makes them pass.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: ['test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.ISOCODE_HOSTILE_PENDING === '1' ? [] : ['test/hostile/pending-*.test.ts']),
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
