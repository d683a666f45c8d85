/**
 * The operations of a bundled OpenAPI document, each described as a tool: one input object (path,
 * query, header and cookie parameters by name, the JSON request body under `body`; a clash gets the
 * location as a prefix, see {@link inputKeys}), the 2xx response's schema as output, and the summary
 * and description as the tool's description. An operation that cannot be called (a non-JSON
 * required body, a path variable with no parameter) is skipped with the reason.
 */
import type { JsonSchema } from '../index.js';
import { parseLocalRef, resolvePointer } from '../sdk/pointer.js';
import { SchemaDocBuilder, isRec } from './openapi-schema.js';
import { isJsonMediaType } from './openapi-http.js';
import { cutText } from '../text/clip.js';
import { compileAhead } from '../tools/schema.js';

type Rec = Record<string, unknown>;

/** Where a parameter goes. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** One parameter of an operation, with the input key it is read from. */
export interface ParameterSpec {
  key: string;
  name: string;
  in: ParameterLocation;
  required: boolean;
  style: string;
  explode: boolean;
  /** Sent as JSON text (`content: { "application/json": ... }` instead of `schema`). */
  json: boolean;
}

/** An operation ready to become a tool. */
export interface OperationSpec {
  /** The operationId, or `<method>_<path>` when it has none. */
  id: string;
  method: string;
  /** The path template (`/pets/{petId}`). */
  path: string;
  description: string;
  input: JsonSchema;
  output: JsonSchema | undefined;
  params: ParameterSpec[];
  /** The request body's input key and media type. */
  body: { key: string; mediaType: string } | undefined;
  /** A declared 2xx response is text (`text/*`): a text answer is returned as a string. */
  acceptsText: boolean;
  deprecated: boolean;
}

/** An operation left out, with why. */
export interface SkippedOperation {
  operation: string;
  reason: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const LOCATIONS = new Set<string>(['path', 'query', 'header', 'cookie']);
/** Header parameters OpenAPI says are ignored (the client sets them). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** Most characters of a tool description taken from a document. */
const MAX_DESCRIPTION = 4_000;

/** Follows `$ref`s (not schemas: parameters, bodies, responses) in the bundled document. */
function deref(doc: unknown, value: unknown): unknown {
  let v = value;
  for (let hops = 0; isRec(v) && typeof v.$ref === 'string'; hops++) {
    const tokens = parseLocalRef(v.$ref);
    if (hops > 32 || tokens === undefined) return undefined;
    const target = resolvePointer(doc, tokens);
    if (!target.found) return undefined;
    v = target.value;
  }
  return v;
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

function describe(op: Rec, method: string, path: string): string {
  const parts = [text(op.summary), text(op.description)].filter(
    (p, i, all) => p !== '' && all.indexOf(p) === i,
  );
  const body = parts.join('\n\n');
  const capped = body.length > MAX_DESCRIPTION ? `${cutText(body, MAX_DESCRIPTION)}…` : body;
  const route = `${method.toUpperCase()} ${path}`;
  return capped === '' ? `${route}.` : `${capped}\n\n(${route})`;
}

/** A name for an operation without operationId: `get_pets_petId` for GET /pets/{petId}. */
function syntheticId(method: string, path: string): string {
  const segments = path
    .split('/')
    .map((s) => s.replace(/[{}]/g, ''))
    .filter((s) => s !== '');
  return [method, ...segments].join('_');
}

/**
 * Input keys: a parameter's key is its name; a name already taken (the same name in two locations,
 * or a parameter called `body`) becomes `<in>_<name>` (then `<in>_<name>_2`, ...). Path parameters
 * claim first, then query, header, cookie, then the body (`body`, else `requestBody`, ...).
 */
function inputKeys(
  params: readonly { name: string; in: string }[],
  withBody: boolean,
): { keys: string[]; bodyKey: string | undefined } {
  const taken = new Set<string>();
  const claim = (candidates: string[], stem: string): string => {
    for (const c of candidates) if (!taken.has(c)) return (taken.add(c), c);
    for (let n = 2; ; n++)
      if (!taken.has(`${stem}_${n}`)) return (taken.add(`${stem}_${n}`), `${stem}_${n}`);
  };
  const order = ['path', 'query', 'header', 'cookie'];
  const keys: string[] = new Array<string>(params.length);
  const sorted = params
    .map((p, i) => ({ p, i }))
    .sort((a, b) => order.indexOf(a.p.in) - order.indexOf(b.p.in));
  for (const { p, i } of sorted)
    keys[i] = claim([p.name, `${p.in}_${p.name}`], `${p.in}_${p.name}`);
  const bodyKey = withBody ? claim(['body', 'requestBody'], 'body') : undefined;
  return { keys, bodyKey };
}

/** The schema and media type of a parameter (from `schema`, or the first entry of `content`). */
function parameterSchema(p: Rec): { schema: unknown; json: boolean } {
  if (p.schema !== undefined) return { schema: p.schema, json: false };
  const content = isRec(p.content) ? Object.entries(p.content) : [];
  const first = content[0];
  return { schema: isRec(first?.[1]) ? first[1].schema : undefined, json: first !== undefined };
}

/** The first JSON media type of a `content` map. */
function jsonContent(content: unknown): { mediaType: string; media: Rec } | undefined {
  if (!isRec(content)) return undefined;
  const entries = Object.entries(content).filter(([t, m]) => isRec(m) && isJsonMediaType(t));
  const best = entries.find(([t]) => t.toLowerCase().startsWith('application/json')) ?? entries[0];
  return best && isRec(best[1]) ? { mediaType: best[0], media: best[1] } : undefined;
}

function withDescription(
  schema: JsonSchema | boolean,
  description: string,
  deprecated: boolean,
): JsonSchema {
  const base: JsonSchema = typeof schema === 'boolean' ? (schema ? {} : { not: {} }) : schema;
  const out: JsonSchema = { ...base };
  if (description !== '' && out.description === undefined)
    out.description =
      description.length > MAX_DESCRIPTION
        ? `${cutText(description, MAX_DESCRIPTION)}…`
        : description;
  if (deprecated) out.deprecated = true;
  return out;
}

function outputOf(
  doc: unknown,
  v30: boolean,
  responses: unknown,
): { output: JsonSchema | undefined; acceptsText: boolean } {
  const codes = isRec(responses)
    ? Object.keys(responses)
        .filter((c) => /^2(\d\d|XX)$/i.test(c))
        .sort()
    : [];
  if (codes.length === 0) return { output: undefined, acceptsText: false };
  const builder = new SchemaDocBuilder(doc, v30, 'output');
  const variants: (JsonSchema | boolean)[] = [];
  let acceptsText = false;
  for (const code of codes) {
    const response = deref(doc, (responses as Rec)[code]);
    const content = isRec(response) ? response.content : undefined;
    const json = jsonContent(content);
    if (json)
      variants.push(json.media.schema === undefined ? {} : builder.convert(json.media.schema));
    else if (
      isRec(content) &&
      Object.keys(content).some((t) => t.toLowerCase().startsWith('text/'))
    ) {
      acceptsText = true;
      variants.push({ type: 'string' });
    } else if (!isRec(content) || Object.keys(content).length === 0)
      variants.push({ type: 'null' });
  }
  const distinct = variants.filter(
    (v, i) => variants.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i,
  );
  if (distinct.length === 0) return { output: undefined, acceptsText };
  const root = distinct.length === 1 ? (distinct[0] as JsonSchema | boolean) : { anyOf: distinct };
  return { output: builder.document(root), acceptsText };
}

function operationOf(
  doc: unknown,
  v30: boolean,
  method: string,
  path: string,
  item: Rec,
  op: Rec,
): OperationSpec | { skip: string } {
  const id =
    typeof op.operationId === 'string' && op.operationId !== ''
      ? op.operationId
      : syntheticId(method, path);
  // Operation parameters replace path-item ones with the same name and location.
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  const all = [...list(item.parameters), ...list(op.parameters)]
    .map((p) => deref(doc, p))
    .filter(
      (p): p is Rec =>
        isRec(p) && typeof p.name === 'string' && typeof p.in === 'string' && LOCATIONS.has(p.in),
    );
  const byKey = new Map<string, Rec>();
  for (const p of all) byKey.set(`${String(p.in)}\0${String(p.name)}`, p);
  const params = [...byKey.values()].filter(
    (p) => !(p.in === 'header' && IGNORED_HEADERS.has(String(p.name).toLowerCase())),
  );
  // A "?" or "#" would move the rest of the path into the query or the fragment.
  if (/[?#]/.test(path)) return { skip: 'its path has a "?" or "#" in it' };
  for (const variable of path.matchAll(/\{([^}]*)\}/g))
    if (!params.some((p) => p.in === 'path' && p.name === variable[1]))
      return { skip: `path variable {${variable[1] ?? ''}} has no path parameter` };

  const requestBody = deref(doc, op.requestBody);
  const json = isRec(requestBody) ? jsonContent(requestBody.content) : undefined;
  const bodyRequired = isRec(requestBody) && requestBody.required === true;
  if (isRec(requestBody) && json === undefined && bodyRequired)
    return {
      skip: `the request body's media types (${Object.keys(isRec(requestBody.content) ? requestBody.content : {}).join(', ') || 'none'}) are not JSON`,
    };

  const builder = new SchemaDocBuilder(doc, v30, 'input');
  const { keys, bodyKey } = inputKeys(params as { name: string; in: string }[], json !== undefined);
  const properties: [string, JsonSchema][] = [];
  const required: string[] = [];
  const specs: ParameterSpec[] = params.map((p, i) => {
    const key = keys[i] as string;
    const { schema, json: asJson } = parameterSchema(p);
    const location = p.in as ParameterLocation;
    const isRequired = location === 'path' || p.required === true;
    properties.push([
      key,
      withDescription(
        schema === undefined ? {} : builder.convert(schema),
        text(p.description),
        p.deprecated === true,
      ),
    ]);
    if (isRequired) required.push(key);
    const style =
      typeof p.style === 'string'
        ? p.style
        : location === 'query' || location === 'cookie'
          ? 'form'
          : 'simple';
    return {
      key,
      name: String(p.name),
      in: location,
      required: isRequired,
      style,
      explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
      json: asJson,
    };
  });
  if (json !== undefined && bodyKey !== undefined && isRec(requestBody)) {
    const schema = json.media.schema === undefined ? {} : builder.convert(json.media.schema);
    properties.push([
      bodyKey,
      withDescription(schema, text(requestBody.description) || 'The request body.', false),
    ]);
    if (bodyRequired) required.push(bodyKey);
  }
  const input = builder.document({
    type: 'object',
    properties: Object.fromEntries(properties),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  });
  const { output, acceptsText } = outputOf(doc, v30, op.responses);
  return {
    id,
    method: method.toUpperCase(),
    path,
    description: describe(op, method, path),
    input,
    output,
    params: specs,
    body:
      json !== undefined && bodyKey !== undefined
        ? { key: bodyKey, mediaType: json.mediaType }
        : undefined,
    acceptsText,
    deprecated: op.deprecated === true,
  };
}

/** Every operation of a bundled document, in document order; the ones that cannot be called are in `skipped`. */
export function operationsOf(
  doc: Rec,
  v30: boolean,
): { operations: OperationSpec[]; skipped: SkippedOperation[] } {
  const operations: OperationSpec[] = [];
  const skipped: SkippedOperation[] = [];
  const seen = new Set<string>();
  for (const [path, rawItem] of Object.entries(isRec(doc.paths) ? doc.paths : {})) {
    const item = deref(doc, rawItem);
    if (!isRec(item) || !path.startsWith('/')) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isRec(op)) continue;
      const spec = operationOf(doc, v30, method, path, item, op);
      const label = 'skip' in spec ? `${method.toUpperCase()} ${path}` : spec.id;
      if ('skip' in spec) skipped.push({ operation: label, reason: spec.skip });
      else if (seen.has(spec.id))
        skipped.push({
          operation: `${spec.id} (${spec.method} ${path})`,
          reason: 'operationId used twice; the first is used',
        });
      else {
        seen.add(spec.id);
        // A schema the validator cannot compile leaves out its operation, not the document.
        const input = compileAhead(spec.input, 'input');
        const output = spec.output === undefined ? undefined : compileAhead(spec.output, 'output');
        if (!input.ok) skipped.push({ operation: label, reason: input.reason });
        else if (output?.ok === false) skipped.push({ operation: label, reason: output.reason });
        else operations.push({ ...spec, input: input.schema, output: output?.schema });
      }
    }
  }
  return { operations, skipped };
}
