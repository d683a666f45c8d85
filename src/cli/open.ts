/**
 * Opening a runtime for a CLI command: from the config (`--config`, or ./isocode.config.json, or
 * the built-in demo tools) or from a tools file (`--tools`: a JSON catalog or a JS/TS module).
 */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import {
  createRuntime,
  IsocodeError,
  type CodeModeOptions,
  type Runtime,
  type ToolDefinition,
  type ToolSchema,
} from '../index.js';
import type { IsocodeConfig, LimitsConfig } from '../sources/config-types.js';
import type { SourceStatus } from '../sources/load.js';
import { loadModuleTools } from '../sources/module.js';
import { openRuntime } from '../sources/open.js';
import { loadConfig } from '../sources/config.js';
import { UsageError } from './errors.js';
import { assertSandboxAllowed, hasNoSnapshotFlag } from './snapshot.js';

/** A tools file: a JSON catalog (schemas only) or a module's tool definitions. */
export type ToolsFile =
  | { kind: 'catalog'; path: string; catalog: ToolSchema[] }
  | { kind: 'module'; path: string; tools: ToolDefinition[] };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads `--tools <file>`: `.json` is a catalog (an array of `{ name, description, inputSchema,
 * outputSchema }` as MCP `tools/list` returns it, or `{ "tools": [...] }`); anything else is a
 * JS/TS module exporting tools.
 */
export async function loadToolsFile(file: string, cwd = process.cwd()): Promise<ToolsFile> {
  const path = resolve(cwd, file);
  if (extname(path).toLowerCase() !== '.json')
    return { kind: 'module', path, tools: await loadModuleTools(path) };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read tools catalog ${file}: ${code === 'ENOENT' ? 'file not found' : (err as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`tools catalog ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const list = Array.isArray(json)
    ? json
    : isRecord(json) && Array.isArray(json.tools)
      ? json.tools
      : undefined;
  if (!list)
    throw new UsageError(
      `tools catalog ${file}: expected an array of tools or an object with a "tools" array`,
    );
  return { kind: 'catalog', path, catalog: list as ToolSchema[] };
}

/** Catalog entries as tools that have no implementation (enough to type-check programs). */
function catalogTools(file: ToolsFile & { kind: 'catalog' }): ToolDefinition[] {
  return file.catalog.map((entry, i) => {
    if (!isRecord(entry) || typeof entry.name !== 'string')
      throw new UsageError(`tools catalog ${file.path}: entry ${i} has no "name"`);
    const t = entry as unknown as ToolSchema;
    return {
      name: t.name,
      description: typeof t.description === 'string' ? t.description : '',
      input: isRecord(t.inputSchema) ? t.inputSchema : { type: 'object' },
      ...(isRecord(t.outputSchema) ? { output: t.outputSchema } : {}),
      execute: () => {
        throw new IsocodeError(
          'TOOL_ERROR',
          `${t.name} comes from a JSON catalog (${file.path}) and has no implementation`,
        );
      },
    };
  });
}

/** Options of {@link openCliRuntime}. */
export interface CliRuntimeOptions {
  /** `--config`. */
  config?: string | undefined;
  /** `--tools`. */
  tools?: string | undefined;
  /** `--scope`. @default the config's default scope */
  scope?: string | undefined;
  /** Whether the command runs programs (code mode on, isolates warmed) or only reads catalogs. */
  codeMode: boolean;
  /** `false`: no type-check (`--no-typecheck`); `true`: type errors fail (`check`). @default the config's `typecheck` */
  typecheck?: boolean | undefined;
  /** Limit flags, layered over the config's `limits`. */
  limits?: LimitsConfig | undefined;
  /**
   * A one-shot command (`run`, `check`): one program is transpiled (and run) in this process, so
   * it keeps one spare sandbox worker (not the config's `spareWorkers`, sized for a server), and
   * the savings ledger only when `savings` (it loads a tokenizer; `run --json` prints it).
   */
  oneShot?: { savings: boolean } | undefined;
  cwd?: string | undefined;
}

/** A runtime opened for a command, with the scope it runs in. */
export interface CliRuntime {
  runtime: Runtime;
  scope: string;
  /** The loaded config (undefined when only `--tools` was given). */
  config: IsocodeConfig | undefined;
  /** The config's sources' status, read when called (none with only `--tools`). */
  sources(): SourceStatus[];
  close(): Promise<void>;
}

const defined = (limits: LimitsConfig | undefined): Record<string, number> =>
  Object.fromEntries(Object.entries(limits ?? {}).filter(([, v]) => v !== undefined));

const typecheckOption = (typecheck: boolean | undefined): Pick<CodeModeOptions, 'typecheck'> =>
  typecheck === undefined ? {} : { typecheck: typecheck ? 'error' : 'off' };

/**
 * Opens the runtime a command works on and checks the scope exists.
 * @throws IsocodeError INVALID_CONFIG / INVALID_SCOPE, UsageError for a bad tools file.
 */
export async function openCliRuntime(options: CliRuntimeOptions): Promise<CliRuntime> {
  const cwd = options.cwd ?? process.cwd();
  const flagLimits = defined(options.limits);
  const hasFlagLimits = Object.keys(flagLimits).length > 0;
  const toolsFile =
    options.tools === undefined ? undefined : await loadToolsFile(options.tools, cwd);
  const extraTools = toolsFile
    ? toolsFile.kind === 'module'
      ? toolsFile.tools
      : catalogTools(toolsFile)
    : [];

  // The flags; openRuntime layers them over the config's limits, field by field.
  const codeMode: CodeModeOptions | false = options.codeMode
    ? {
        ...typecheckOption(options.typecheck),
        ...(hasFlagLimits ? { limits: flagLimits } : {}),
        ...(options.oneShot
          ? { workers: { spareWorkers: 1 }, savings: options.oneShot.savings }
          : {}),
      }
    : false;
  let opened: CliRuntime;
  if (toolsFile && options.config === undefined) {
    // Only the file's tools, in a code-mode default scope.
    const runtime = await createRuntime({
      tools: extraTools,
      scopes: { default: { mode: 'code' } },
      codeMode,
    });
    opened = {
      runtime,
      scope: options.scope ?? 'default',
      config: undefined,
      sources: () => [],
      close: () => runtime.close(),
    };
  } else {
    // The in-process sandbox would create isolates here: only with --no-node-snapshot (snapshot.ts).
    if (options.codeMode && !hasNoSnapshotFlag())
      assertSandboxAllowed((await loadConfig(options.config, { cwd })).sandbox, false);
    const o = await openRuntime({
      configPath: options.config,
      cwd,
      runtime: { codeMode, ...(extraTools.length > 0 ? { tools: extraTools } : {}) },
    });
    opened = {
      runtime: o.runtime,
      scope: options.scope ?? o.defaultScope,
      config: o.config,
      sources: () => o.sources,
      close: () => o.close(),
    };
  }
  try {
    opened.runtime.mode(opened.scope); // INVALID_SCOPE for an unknown scope
  } catch (err) {
    await opened.close();
    throw err;
  }
  return opened;
}
