import { configDefaults, defineConfig } from 'vitest/config';

// isolated-vm on Node 20+ needs --no-node-snapshot; the runner passes it to every test worker.
export default defineConfig({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: ['test/**/*.test.ts'],
    // Starts a throwaway PostgreSQL when ISOCODE_TEST_PG_URL is not given (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    exclude: [...configDefaults.exclude],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
