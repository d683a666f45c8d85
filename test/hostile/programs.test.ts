/**
 * The hostile suite, one program at a time through `POST /v1/run` and `POST /v1/check` (issue 10
 * item 5): the host survives, the right error comes back, the server tree stays within its RSS
 * budget and burns no core after the answer, and the other tenant's next benign run succeeds.
 * Programs that crashed the server before the sandbox left the host process (a parser stack
 * overflow, V8's last-resort OOM) get a fresh server each, so one cannot mask another.
 */
import { HOSTILE_PROGRAMS } from '../../benchmarks/load/programs.js';
import {
  LAST_RESORT_OOM,
  NATIVE_MEMORY,
  RESIZABLE_BUFFERS,
  STACK_OVERFLOWING_SOURCES,
  UNINTERRUPTIBLE_BUILTINS,
} from './classes.js';
import { hostileSuite } from './suite.js';

hostileSuite(
  'CPU spin',
  HOSTILE_PROGRAMS.filter((p) => p.class === 'cpu'),
  { via: 'run' },
);
hostileSuite('stack-overflowing sources', STACK_OVERFLOWING_SOURCES, { via: 'run' });
hostileSuite('stack-overflowing sources', STACK_OVERFLOWING_SOURCES, { via: 'check' });
hostileSuite('last-resort OOM', LAST_RESORT_OOM, { via: 'run' });
hostileSuite('native memory', NATIVE_MEMORY, { via: 'run' });
hostileSuite('resizable buffers', RESIZABLE_BUFFERS, { via: 'run' });
hostileSuite('uninterruptible builtins', UNINTERRUPTIBLE_BUILTINS, { via: 'run' });
