/** The executor's typed event stream and the JSON-lines audit sink. */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Emitter } from '../events/emitter.js';
import type { ErrorCode } from '../errors.js';
import type { JsonValue } from '../json.js';
import { cutText } from '../text/clip.js';
import { visibleJson } from '../text/visible.js';
import type { ApprovalOutcome } from './approval.js';
import type { DenyReason } from './types.js';

interface EventBase {
  /** Wall-clock time of the event (ms since the epoch). */
  time: number;
  callId: string;
  name: string;
  scope: string;
  parentId: string | undefined;
}

/** Every event the executor emits. */
export type ExecutorEvent =
  | (EventBase & { type: 'tool/call'; args: JsonValue | undefined })
  | (EventBase & {
      type: 'tool/result';
      ok: boolean;
      code: ErrorCode | undefined;
      reason: DenyReason | undefined;
      durationMs: number;
    })
  | (EventBase & { type: 'approval/asked'; message: string | undefined })
  | (EventBase & {
      type: 'approval/decided';
      outcome: ApprovalOutcome;
      durationMs: number;
      /** Who decided, when the approver says (a human's decision over HTTP: `http:<scope>:<request id>`). */
      decidedBy?: string | undefined;
    })
  | (EventBase & { type: 'tool/code-dispatch-start'; queuedMs: number })
  | (EventBase & {
      type: 'tool/code-dispatch';
      ok: boolean;
      code: ErrorCode | undefined;
      durationMs: number;
    });

/** The event type names. */
export type ExecutorEventType = ExecutorEvent['type'];

/** A listener; a throw or a rejection never breaks a call. */
export type EventListener = (event: ExecutorEvent) => void | Promise<void>;

/** The executor's event stream: an {@link Emitter} of executor events. */
export type EventBus = Emitter<[ExecutorEvent]>;

type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event without the fields every event of one call shares (the executor adds them). */
export type EventBody = Without<ExecutorEvent, keyof EventBase>;

/** Where the audit log goes. */
export type AuditOptions =
  | { path: string; maxFieldBytes?: number | undefined }
  | { write: (line: string) => void; maxFieldBytes?: number | undefined };

/** An audit sink: one JSON line per event. */
export interface AuditSink {
  listener: EventListener;
  close(): Promise<void>;
}

const truncate = (value: JsonValue | undefined, max: number): JsonValue | undefined => {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text.length <= max
    ? value
    : { truncated: true, bytes: text.length, head: cutText(text, max) };
};

/**
 * Creates a JSON-lines audit sink (file append or a custom writer). Arguments are capped per
 * field; hidden characters are written as JSON escapes (decision 028).
 */
export function createAuditSink(options: AuditOptions): AuditSink {
  const max = options.maxFieldBytes ?? 16_384;
  let stream: WriteStream | undefined;
  const write =
    'path' in options
      ? (line: string): void => {
          stream ??= createWriteStream(options.path, { flags: 'a' });
          stream.write(line);
        }
      : options.write;
  return {
    listener(event) {
      const record =
        event.type === 'tool/call' ? { ...event, args: truncate(event.args, max) } : event;
      // JSON whose hidden characters are escapes (decision 028): `tail -f` of the audit is safe.
      write(`${visibleJson(record)}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!stream) return resolve();
        stream.end(() => resolve());
      }),
  };
}
