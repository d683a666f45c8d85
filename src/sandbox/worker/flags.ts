/**
 * V8 flags of a sandbox worker process, set before any isolate exists (this module is the worker's
 * first import). `--no-harmony-rab-gsab` removes resizable and growable array buffers, which
 * allocate outside the allocator that enforces an isolate's memory limit. V8 12 (Node 22) shipped
 * them for good and removed the flag (setting it would print "unrecognized flag"); there, as
 * everywhere, the isolate's lockdown deletes `resize`, `transfer` and `transferToFixedLength`.
 */
import { setFlagsFromString } from 'node:v8';

/** The flags this process's V8 knows, in V8's syntax. */
export const WORKER_V8_FLAGS: readonly string[] =
  Number(process.versions.v8.split('.')[0]) < 12 ? ['--no-harmony-rab-gsab'] : [];

for (const flag of WORKER_V8_FLAGS) setFlagsFromString(flag);
