/**
 * The sandbox: runs a program's JavaScript in an isolated-vm isolate with limits it cannot outrun,
 * and a bridge that only knows how to hand tool calls to the `dispatch` function it is given.
 */
export { SandboxPool, type SandboxPoolOptions, type SandboxPoolStats } from './pool.js';
export {
  DEFAULT_LIMITS,
  type CallEvent,
  type Dispatch,
  type DispatchResult,
  type FailureKind,
  type LogEntry,
  type RunOutcome,
  type RunRequest,
  type RunStats,
  type SandboxBinding,
  type SandboxLimits,
} from './types.js';
export { resolveLimits } from './limits.js';
