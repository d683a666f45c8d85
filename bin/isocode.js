#!/usr/bin/env node
// The isocode launcher: runs the CLI in this one process. Programs run in sandbox worker processes,
// which are started with --no-node-snapshot (what isolated-vm needs on Node 20+); this process
// creates no isolate, so it keeps Node's startup snapshot and is not re-executed (decision record
// 022). The one exception, a config with `sandbox: "in-process"`, is refused with the command that
// adds the flag (src/cli/snapshot.ts).
//
// isolated-vm is a native addon built by its install script: installed with --ignore-scripts (or
// by an npm that holds install scripts back until they are approved) it is missing, and every run
// would die with a raw "Cannot find module './out/isolated_vm'" stack from the sandbox process.
// That case gets one line naming the fix instead, before anything starts: dist/addon.js asks the
// installed isolated-vm line's own loader where the addon is, without loading it.
import { findIsolatedVmAddon } from '../dist/addon.js';

const NO_ADDON =
  "isocode: isolated-vm's native addon is missing: the package was installed without its install " +
  'scripts (--ignore-scripts, or scripts npm was not allowed to run). Build it with: npm rebuild isolated-vm\n';

const args = process.argv.slice(2);
const needsSandbox = !['--version', '-V', '--help', '-h', 'help', 'sdk'].includes(
  args[0] ?? '--help',
);
if (needsSandbox && findIsolatedVmAddon(import.meta.url).kind === 'missing') {
  process.stderr.write(NO_ADDON);
  process.exit(1);
}
const { main } = await import('../dist/cli.js');
await main(args);
