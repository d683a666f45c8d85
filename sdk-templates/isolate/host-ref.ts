import { ObjectCreate } from './primordials.js';

/**
 * The slice of isolated-vm's `Reference` the bootstrap uses, typed for the isolate (no isolated-vm
 * types exist here). Instances live only in bootstrap closures: no global, property or return value
 * ever exposes one to guest code (a `Reference` leads to its constructor and to the host).
 */

/** Transfer options as isolated-vm reads them (objects given with a null prototype). */
export interface TransferOptions {
  copy?: boolean;
  promise?: boolean;
}

/** A host function held by reference. */
export interface HostRef {
  apply(
    receiver: undefined,
    args: unknown[],
    options: { arguments?: TransferOptions; result?: TransferOptions },
  ): Promise<unknown>;
  applyIgnored(
    receiver: undefined,
    args: unknown[],
    options: { arguments?: TransferOptions },
  ): void;
}

/**
 * State shared by the console, the bridge and the runner. The host receives messages through more
 * than one isolated-vm queue, so the outcome carries `sent` and the host waits until it has
 * received that many (logs and calls) before settling; once `closed` (the program has settled)
 * nothing more is sent.
 */
export interface Wire {
  /** Messages sent to the host so far (console entries and binding calls). */
  sent: number;
  /** True once the program's promise has settled. */
  closed: boolean;
}

/** A fresh {@link Wire} (null prototype: no inherited property is ever read). */
export function createWire(): Wire {
  const wire = ObjectCreate(null) as Wire;
  wire.sent = 0;
  wire.closed = false;
  return wire;
}
