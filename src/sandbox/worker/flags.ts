/**
 * V8 flags of a sandbox worker process, set before any isolate exists (this module is the worker's
 * first import). `--no-harmony-rab-gsab` removes resizable and growable array buffers, which
 * allocate outside the allocator that enforces an isolate's memory limit (an engine without the
 * flag ignores it; the isolate's lockdown removes `resize` as well).
 */
import { setFlagsFromString } from 'node:v8';

/** The flags, in V8's syntax. */
export const WORKER_V8_FLAGS = ['--no-harmony-rab-gsab'] as const;

for (const flag of WORKER_V8_FLAGS) setFlagsFromString(flag);
