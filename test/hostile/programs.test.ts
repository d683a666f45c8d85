/**
 * The hostile suite, one program at a time through `POST /v1/run` and `POST /v1/check` (issue 10
 * item 5): the host survives, the right error comes back, the server tree stays within its RSS
 * budget and burns no core after the answer, and the other tenant's next benign run succeeds.
 * Programs that crash today's server (the whole last-resort OOM class among them) run in
 * pending-crash.test.ts instead.
 */
import { HOSTILE_PROGRAMS, type HostileProgram } from '../../benchmarks/load/programs.js';
import {
  CRASHES_TODAY,
  NATIVE_MEMORY,
  RESIZABLE_BUFFERS,
  STACK_OVERFLOWING_SOURCES,
  UNINTERRUPTIBLE_BUILTINS,
} from './classes.js';
import { hostileSuite } from './suite.js';

const survivable = (programs: readonly HostileProgram[]): HostileProgram[] =>
  programs.filter((p) => !CRASHES_TODAY.has(p.name));

hostileSuite(
  'CPU spin',
  HOSTILE_PROGRAMS.filter((p) => p.class === 'cpu'),
  { via: 'run' },
);
hostileSuite('stack-overflowing sources', survivable(STACK_OVERFLOWING_SOURCES), { via: 'run' });
hostileSuite('stack-overflowing sources', survivable(STACK_OVERFLOWING_SOURCES), { via: 'check' });
hostileSuite('native memory', survivable(NATIVE_MEMORY), { via: 'run' });
hostileSuite('resizable buffers', survivable(RESIZABLE_BUFFERS), { via: 'run' });
hostileSuite('uninterruptible builtins', survivable(UNINTERRUPTIBLE_BUILTINS), { via: 'run' });
