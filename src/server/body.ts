/** Request bodies: JSON parsing and the strict zod schemas of each route. */
import { thrownText } from '../errors.js';
import { z } from 'zod';
import { formatIssues, zodIssues } from '../tools/schema.js';
import { IsocodeError } from '../index.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../json.js';

/** `POST /v1/execute`: a model-direct tool call. No field can carry a parent token. */
export const executeBody = z.strictObject({
  name: z.string().min(1).max(256),
  /** @default {} */
  args: z.unknown().optional(),
  /** The call id (`http-` is reserved for ids the server generates for `/v1/run` streams). */
  id: z
    .string()
    .min(1)
    .max(128)
    .refine((id) => !id.startsWith('http-'), 'ids starting with "http-" are reserved')
    .optional(),
});

/** `POST /v1/run`: run_code's arguments (their rules are run_code's own, checked as a tool outcome). */
export const runBody = z.strictObject({
  code: z.string(),
  description: z.string(),
});

/** `POST /v1/check`: a program to type-check. */
export const checkBody = z.strictObject({
  code: z.string().min(1, 'code must not be empty'),
});

/**
 * How deep a request body may nest: twice what a tool's arguments may (MAX_JSON_DEPTH), so a call
 * nested a little too deep still gets the executor's INVALID_ARGS with its path.
 */
const MAX_BODY_DEPTH = 2 * MAX_JSON_DEPTH;

const isJsonContentType = (value: string | undefined): boolean => {
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return (
    type === 'application/json' ||
    (type !== undefined && /^application\/[\w.+-]+\+json$/.test(type))
  );
};

/**
 * Parses a JSON request body against a strict schema.
 * @throws IsocodeError BAD_REQUEST for a wrong content type (a CSRF guard: browsers cannot send
 * JSON cross-origin without a preflight), invalid JSON, or a body the schema rejects (details: issues).
 */
export async function parseBody<S extends z.ZodType>(
  req: { header(name: string): string | undefined; text(): Promise<string> },
  schema: S,
): Promise<z.infer<S>> {
  if (!isJsonContentType(req.header('content-type')))
    throw new IsocodeError('BAD_REQUEST', 'Content-Type must be application/json');
  const text = await req.text();
  // Past this, the schemas' recursive checks (z.json()) could run out of stack: a 500 for a 400.
  if (jsonTooDeep(text, MAX_BODY_DEPTH))
    throw new IsocodeError(
      'BAD_REQUEST',
      `the request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`,
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new IsocodeError('BAD_REQUEST', `the request body is not valid JSON: ${thrownText(err)}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new IsocodeError('BAD_REQUEST', `invalid request body: ${formatIssues(issues)}`, {
      details: { issues },
    });
  }
  return parsed.data;
}
