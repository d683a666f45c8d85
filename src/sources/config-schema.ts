/** zod 4 schemas of `isocode.config.json` (structure only; cross-references are checked in config.ts). */
import { z } from 'zod';
import { INHERIT_ENV_RE } from './child-process.js';

/** A source namespace: a letter, then letters, digits, `_` or `-`; at most 32 characters. */
export const SOURCE_NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
/** A scope name: a letter or digit, then letters, digits, `_`, `.` or `-`; at most 64 characters. */
export const SCOPE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A tool-name pattern: tool-name characters and `*`. */
export const TOOL_PATTERN_RE = /^[A-Za-z0-9_.*-]{1,64}$/;
/** A replica id (`store.replicaId`): a letter or digit, then letters, digits, `_`, `.`, `:` or `-`; at most 64. */
export const REPLICA_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
/** An environment variable name. */
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const int = (min: number, max = Number.MAX_SAFE_INTEGER): z.ZodNumber =>
  z.number().int().min(min).max(max);
const nonEmpty = z.string().min(1);
const envName = z.string().regex(ENV_NAME_RE, 'expected an environment variable name');
const scopeName = z
  .string()
  .regex(
    SCOPE_NAME_RE,
    'expected a scope name (letters, digits, "_", "." or "-", starting with a letter or digit)',
  );

export const limitsSchema = z.strictObject({
  memoryMb: int(8, 65_536).optional(),
  cpuMs: int(1).optional(),
  wallMs: int(1).optional(),
  maxLogBytes: int(0).optional(),
  maxResultBytes: int(1).optional(),
  maxCalls: int(0).optional(),
  maxCallsInFlight: int(1).optional(),
  maxQueuedCalls: int(0).optional(),
  maxQueuedBytes: int(0).optional(),
  hostMs: int(1).optional(),
});

export const workersSchema = z.strictObject({
  maxWorkers: int(1, 1024).optional(),
  spareWorkers: int(0, 1024).optional(),
  rssBudgetMb: int(64).optional(),
  totalRssBudgetMb: int(64).optional(),
  monitorIntervalMs: int(5).optional(),
  maxRunsPerWorker: int(1).optional(),
});

export const admissionSchema = z.strictObject({
  maxConcurrentRuns: int(1).optional(),
  maxConcurrentRunsPerScope: int(1).optional(),
  maxQueuedRunsPerScope: int(0).optional(),
  maxQueuedRuns: int(0).optional(),
  maxQueueWaitMs: int(1).optional(),
});

const pattern = z
  .string()
  .regex(TOOL_PATTERN_RE, 'expected a tool-name pattern (tool-name characters and "*")');

export const scopeSchema = z.strictObject({
  parent: scopeName.optional(),
  allow: z.array(pattern).optional(),
  deny: z.array(pattern).optional(),
  ask: z.array(pattern).optional(),
  mode: z.enum(['native', 'code', 'both']).optional(),
  limits: limitsSchema.optional(),
});

/** A key's name (who holds it), as the audit and the console show it. */
export const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const apiKeySchema = z
  .strictObject({
    key: nonEmpty.optional(),
    keyEnv: envName.optional(),
    scope: scopeName,
    name: z
      .string()
      .regex(
        KEY_NAME,
        'a key name is 1 to 64 of A-Z a-z 0-9 . _ @ - (starting with a letter or digit)',
      )
      .optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.key === undefined) === (v.keyEnv === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected exactly one of "key" or "keyEnv"',
        path: [],
      });
    }
  });

export const serverSchema = z.strictObject({
  host: nonEmpty.default('127.0.0.1'),
  port: int(0, 65_535).default(8787),
  apiKeys: z.array(apiKeySchema).default([]),
  maxBodyBytes: int(1024).default(1_048_576),
  console: z.strictObject({ enabled: z.boolean() }).optional(),
});

/** The top level. `sources` entries are checked one by one (see `sourceSchemaFor`). */
export const topLevelSchema = z.strictObject({
  $schema: z.string().optional(),
  sources: z.array(z.unknown()).optional(),
  defaultScope: scopeName.default('default'),
  scopes: z.record(z.string(), scopeSchema).optional(),
  limits: limitsSchema.default({}),
  typecheck: z.enum(['error', 'warn', 'off']).default('error'),
  inferOutputs: z.union([z.boolean(), z.strictObject({ dir: nonEmpty.optional() })]).default(false),
  discovery: z
    .strictObject({
      mode: z.enum(['auto', 'always', 'never']).optional(),
      thresholdTokens: int(0).optional(),
    })
    .default({}),
  sandbox: z.enum(['process', 'in-process']).default('process'),
  wall: z.enum(['auto', 'bwrap', 'none']).default('auto'),
  workers: workersSchema.default({}),
  admission: admissionSchema.default({}),
  maxParallelSubCalls: int(1, 1000).default(10),
  defaultTimeoutMs: int(1).default(60_000),
  audit: z.strictObject({ path: nonEmpty }).optional(),
  store: z
    .strictObject({
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must start with postgres://')
        .optional(),
      urlEnv: nonEmpty.optional(),
      path: nonEmpty.optional(),
      schema: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]{0,47}$/)
        .optional(),
      approvalTimeoutMs: int(1).optional(),
      replicaId: z
        .string()
        .regex(
          REPLICA_ID_RE,
          'expected a replica id (letters, digits, "_", ".", ":" or "-", starting with a letter or digit; at most 64)',
        )
        .optional(),
      leaseMs: int(100, 3_600_000).optional(),
      parkAfterMs: z.union([int(0, 3_600_000), z.literal(false)]).optional(),
      maxQueuedRunsPerScope: int(0).optional(),
      maxStoredBytesPerScope: int(0).optional(),
      retentionMs: z.union([int(1), z.literal(false)]).optional(),
    })
    .refine(
      (s) => [s.url, s.urlEnv, s.path].filter((v) => v !== undefined).length <= 1,
      'give at most one of url, urlEnv (PostgreSQL) and path (embedded)',
    )
    .optional(),
  mcp: z.strictObject({ elicitation: z.boolean().default(true) }).default({ elicitation: true }),
  server: serverSchema.default({
    host: '127.0.0.1',
    port: 8787,
    apiKeys: [],
    maxBodyBytes: 1_048_576,
  }),
});

export const builtinSourceSchema = z.strictObject({ builtin: z.enum(['demo']) });

export const moduleSourceSchema = z.strictObject({
  module: nonEmpty,
  name: z
    .string()
    .regex(
      SOURCE_NAME_RE,
      'expected a source name (a letter, then letters, digits, "_" or "-"; at most 32)',
    )
    .optional(),
});

const mcpCommon = {
  name: z
    .string()
    .regex(
      SOURCE_NAME_RE,
      'expected a source name (a letter, then letters, digits, "_" or "-"; at most 32)',
    ),
  timeoutMs: int(1).optional(),
  connectTimeoutMs: int(1).default(30_000),
};

export const mcpStdioSchema = z.strictObject({
  command: nonEmpty,
  args: z.array(z.string()).default([]),
  env: z.record(envName, z.string()).default({}),
  inheritEnv: z
    .array(
      z
        .string()
        .regex(INHERIT_ENV_RE, 'expected an environment variable name or a "PREFIX_*" pattern'),
    )
    .default([]),
  cwd: nonEmpty.optional(),
  stderr: z.enum(['capture', 'inherit', 'ignore']).default('capture'),
});

export const mcpHttpSchema = z.strictObject({
  url: z
    .string()
    .refine(
      (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol),
      'expected an http: or https: URL',
    ),
  headers: z
    .record(z.string().regex(HEADER_NAME_RE, 'expected an HTTP header name'), z.string())
    .default({}),
});

export const mcpSourceSchema = z.strictObject({
  ...mcpCommon,
  mcp: z.record(z.string(), z.unknown()),
});

export const openApiSourceSchema = z.strictObject({
  name: mcpCommon.name,
  openapi: z.strictObject({
    spec: nonEmpty,
    baseUrl: z
      .string()
      .refine(
        (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol),
        'expected an http: or https: URL',
      )
      .optional(),
    headers: z
      .record(z.string().regex(HEADER_NAME_RE, 'expected an HTTP header name'), z.string())
      .default({}),
    timeoutMs: int(1).optional(),
    maxResponseBytes: int(1).optional(),
    operations: z.array(nonEmpty).optional(),
  }),
});

const SOURCE_KINDS = ['builtin', 'module', 'mcp', 'openapi'] as const;
const KIND_LIST = '"builtin", "module", "mcp" or "openapi"';

/** The kind of a `sources` entry, from the key it has, or a problem message. */
export function sourceKindOf(entry: unknown): (typeof SOURCE_KINDS)[number] | { problem: string } {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    return { problem: `expected an object with one of ${KIND_LIST}` };
  }
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(entry, k);
  const kinds = SOURCE_KINDS.filter(has);
  if (kinds.length === 1 && kinds[0] !== undefined) return kinds[0];
  if (kinds.length === 0) return { problem: `expected one of the keys ${KIND_LIST}` };
  return {
    problem: `expected only one of the keys ${KIND_LIST}, got ${kinds.map((k) => `"${k}"`).join(' and ')}`,
  };
}

/** The transport of an `mcp` object, from the key it has, or a problem message. */
export function mcpTransportOf(
  mcp: Record<string, unknown>,
): 'stdio' | 'http' | { problem: string } {
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(mcp, k);
  if (has('command') && has('url'))
    return { problem: 'expected either "command" (stdio) or "url" (HTTP), not both' };
  if (has('command')) return 'stdio';
  if (has('url')) return 'http';
  return { problem: 'expected "command" (stdio) or "url" (streamable HTTP)' };
}
