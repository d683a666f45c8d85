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
// That case gets one line naming the fix instead, before anything starts (a resolve and a stat).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const NO_ADDON =
  "isocode: isolated-vm's native addon is missing: the package was installed without its install " +
  'scripts (--ignore-scripts, or scripts npm was not allowed to run). Build it with: npm rebuild isolated-vm\n';

// Whether the installed isolated-vm would find its addon, asked the way that line loads it, without
// loading it: 5.x and 6.0 require ./out/isolated_vm.node; 6.1 and later load through node-gyp-build
// (build/Release, or the prebuilds/ their tarball ships), whose resolve() finds the file or throws.
// Not installed at all, or a layout this does not know: false, and the CLI's own error speaks.
function addonMissing() {
  let main;
  try {
    main = createRequire(import.meta.url).resolve('isolated-vm');
  } catch {
    return false;
  }
  const dir = dirname(main);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    return false;
  }
  if (manifest?.dependencies?.['node-gyp-build'] === undefined) {
    return !existsSync(join(dir, 'out', 'isolated_vm.node'));
  }
  let gypBuild;
  try {
    gypBuild = createRequire(main)('node-gyp-build');
  } catch {
    return false;
  }
  try {
    gypBuild.resolve(dir);
    return false;
  } catch {
    return true;
  }
}

const args = process.argv.slice(2);
const needsSandbox = !['--version', '-V', '--help', '-h', 'help', 'sdk'].includes(
  args[0] ?? '--help',
);
if (needsSandbox && addonMissing()) {
  process.stderr.write(NO_ADDON);
  process.exit(1);
}
const { main } = await import('../dist/cli.js');
await main(args);
