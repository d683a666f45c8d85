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
  applyIgnored(receiver: undefined, args: unknown[], options: { arguments?: TransferOptions }): void;
}
