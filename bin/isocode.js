#!/usr/bin/env node
// The isocode launcher: runs the CLI in this one process. Programs run in sandbox worker processes,
// which are started with --no-node-snapshot (what isolated-vm needs on Node 20+); this process
// creates no isolate, so it keeps Node's startup snapshot and is not re-executed (decision record
// 022). The one exception, a config with `sandbox: "in-process"`, is refused with the command that
// adds the flag (src/cli/snapshot.ts).
import { main } from '../dist/cli.js';

await main(process.argv.slice(2));
