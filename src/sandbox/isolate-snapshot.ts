/**
 * The process's V8 startup snapshot of the isolate bootstrap (decision record 039): taken once, on
 * the first isolate that asks for it, where the engine deserializes it faithfully; an isolate created
 * from it runs {@link CLAIM_CODE} in each fresh context instead of the bootstrap script. Any failure
 * to take or claim it turns it off for the life of the process, and isolates run the script.
 */
import { thrownText } from '../errors.js';
import ivm from 'isolated-vm';
import { SNAPSHOT_CLAIM } from '../../sdk-templates/isolate/protocol.js';
import { loadBootstrapScript } from './isolate-code.js';

/**
 * How the contexts of an isolate get the bootstrap: `snapshot` — the isolate starts from a V8
 * startup snapshot taken after the bootstrap ran, and each context only claims its `entry` (measured
 * ~0.2 ms of CPU less per run on V8 12); `script` — the bootstrap runs in each fresh context (decision 039).
 */
export type BootstrapMode = 'snapshot' | 'script';

/** The claim each context made from the snapshot runs first (see `bootstrap.ts`'s `claim`). */
export const CLAIM_CODE = `(0, globalThis[${JSON.stringify(SNAPSHOT_CLAIM)}])()`;

/** The claim script's name in isolate stacks. */
export const CLAIM_FILENAME = `${SNAPSHOT_CLAIM}.js`;

/**
 * Whether this engine deserializes a startup snapshot faithfully. V8 before 12 (Node 20's 11.3, with
 * isolated-vm 5) does not: a context made from a snapshot whose script holds a one-letter string
 * finds another name in its place (measured: `Math.E` became `Math["8"]`, `Math.à`; the bootstrap's
 * own tools tree came out empty), so isolates there always run the bootstrap script. From V8 12
 * (Node 22, 24, 26) `test/sandbox/snapshot.test.ts` checks that every object a program can reach is
 * the same either way (decision 039).
 */
export const SNAPSHOT_SUPPORTED = Number(process.versions.v8.split('.')[0]) >= 12;

/**
 * The process's startup snapshot, taken once (~15 ms) on first use: `undefined` when the engine
 * cannot use one, it cannot be taken, or a context made from it could not be claimed; isolates then
 * run the bootstrap script.
 */
let snapshot: Promise<ivm.ExternalCopy<ArrayBuffer> | undefined> | undefined;
let snapshotFailure: string | undefined = SNAPSHOT_SUPPORTED
  ? undefined
  : `V8 ${process.versions.v8} does not deserialize startup snapshots faithfully`;

/** The snapshot, taken on first use; `undefined` when turned off (see `snapshotFailureReason`). */
export function startupSnapshot(): Promise<ivm.ExternalCopy<ArrayBuffer> | undefined> {
  if (snapshotFailure !== undefined) return Promise.resolve(undefined);
  snapshot ??= loadBootstrapScript('snapshot').then(
    (source) => {
      try {
        return ivm.Isolate.createSnapshot([{ code: source.code, filename: source.filename }]);
      } catch (error) {
        snapshotGaveUp(error);
        return undefined;
      }
    },
    (error: unknown) => {
      snapshotGaveUp(error);
      return undefined;
    },
  );
  return snapshot;
}

/** Turns the snapshot off for the life of the process, keeping `error`'s message as the reason. */
export function snapshotGaveUp(error: unknown): void {
  snapshotFailure = thrownText(error);
}

/** Why this process's isolates run the bootstrap script instead of starting from the snapshot. */
export function snapshotFailureReason(): string | undefined {
  return snapshotFailure;
}
