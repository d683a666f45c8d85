import { nullRecord, ObjectCreate, ReflectApply } from './primordials.js';

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

/** A host function held by reference: the run's port (see `MESSAGE`). */
export interface HostRef {
  applyIgnored(
    receiver: undefined,
    args: unknown[],
    options?: { arguments?: TransferOptions },
  ): void;
}

/** Sends one message to the host, one-way. Throws when the host reference is gone. */
export type Send = (message: unknown[]) => void;

// Every part of a message is a primitive: it crosses as it is, no `copy` (isolated-vm's serializer).
const SEND_OPTIONS = nullRecord({});

/** The send function of a port; `applyIgnored` is read now, before any guest code runs. */
export function createSend(port: HostRef): Send {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called through ReflectApply with port
  const applyIgnored = port.applyIgnored;
  return (message) => {
    ReflectApply(applyIgnored, port, [undefined, message, SEND_OPTIONS]);
  };
}

/**
 * State of the context's one run, shared by the console, the bridge and the runner. The host
 * receives messages through more than one isolated-vm queue, so the outcome carries `sent` and the
 * host waits until it has received that many (logs and calls) before settling. Once `closed` (the
 * program has settled) nothing more is sent, replies still on their way are dropped without
 * resuming guest code, and FinalizationRegistry callbacks no longer run: the isolate may already
 * serve the next run (in another context).
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
