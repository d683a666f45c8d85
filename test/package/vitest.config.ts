import { defineConfig } from 'vitest/config';

// The pack-and-install test: packs the built package, installs the tarball into fresh apps (a
// native isolated-vm install each), and runs it as a user would. Minutes, not seconds, so it is
// not part of `npm test`; CI runs it per Node line in .ci/node-matrix.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/package/**/*.pack.ts'],
    testTimeout: 120_000,
    hookTimeout: 900_000,
  },
});
