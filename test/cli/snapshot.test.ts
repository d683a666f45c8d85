import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.js';
import { assertSandboxAllowed, hasNoSnapshotFlag } from '../../src/cli/snapshot.js';

describe('the CLI process and --no-node-snapshot', () => {
  it('finds the flag on the command line or in NODE_OPTIONS', () => {
    expect(hasNoSnapshotFlag(['--no-node-snapshot'], undefined)).toBe(true);
    expect(hasNoSnapshotFlag([], '--max-old-space-size=100 --no-node-snapshot')).toBe(true);
    expect(hasNoSnapshotFlag(['--no-warnings'], '--no-node-snapshots')).toBe(false);
  });

  it('refuses the in-process sandbox without the flag, and allows the worker sandbox', () => {
    expect(() => assertSandboxAllowed('in-process', false)).toThrow(UsageError);
    expect(() => assertSandboxAllowed('in-process', false)).toThrow(
      /NODE_OPTIONS=--no-node-snapshot/,
    );
    expect(() => assertSandboxAllowed('in-process', true)).not.toThrow();
    expect(() => assertSandboxAllowed('process', false)).not.toThrow();
    expect(() => assertSandboxAllowed(undefined, false)).not.toThrow();
  });
});
