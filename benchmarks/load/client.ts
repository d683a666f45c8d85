/** Single requests to a face, classified like the load test's answers (for the fault and hostile suites). */
import { classify, type Answer } from './classify.js';

/** A network error that stood in for an answer (a reset, a refused connection, a timeout). */
export interface ConnectionError {
  outcome: 'connection-error';
  error: string;
  /** No answer within the client's time limit: a hang, not a close. */
  timedOut: boolean;
}

/** A raw HTTP answer. */
export interface RawReply {
  status: number;
  body: string;
  retryAfter: boolean;
}

/** POSTs JSON to `url` with a bearer key; never rejects. */
export async function postJson(
  url: string,
  key: string,
  body: unknown,
  timeoutMs = 60_000,
): Promise<RawReply | ConnectionError> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return {
      status: res.status,
      body: await res.text(),
      retryAfter: res.headers.has('retry-after'),
    };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return { outcome: 'connection-error', error: String(error), timedOut };
  }
}

/** The classified answer of a run (with its body), or the connection error. */
export type RunReply = (Answer & { body: string }) | ConnectionError;

/** Runs a program through `POST /v1/run`; never rejects. */
export async function runProgram(
  baseUrl: string,
  key: string,
  code: string,
  timeoutMs?: number,
): Promise<RunReply> {
  const reply = await postJson(`${baseUrl}/v1/run`, key, { code, description: 'probe' }, timeoutMs);
  return 'outcome' in reply
    ? reply
    : { ...classify(reply.status, reply.body, reply.retryAfter), body: reply.body };
}

/** Type-checks a program through `POST /v1/check`; never rejects. */
export const checkProgram = (
  baseUrl: string,
  key: string,
  code: string,
  timeoutMs?: number,
): Promise<RawReply | ConnectionError> => postJson(`${baseUrl}/v1/check`, key, { code }, timeoutMs);
