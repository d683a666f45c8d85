/**
 * Output inference (opt-in): successful results of tools that declare no output schema are folded,
 * off the call's path, into an inferred schema per tool version; the SDK renders it marked as
 * inferred, and is re-rendered only when a folded schema changes. Inferred schemas are types for
 * the model only: they never validate a real output. Decision record 019.
 */
import { createHash } from 'node:crypto';
import type { ToolSchema } from '../tools/types.js';
import { foldLimits, foldSchema, schemaOf, type FoldLimits, type InferredSchema } from './fold.js';
import { InferenceStore, type InferredOf, type InferredRecord } from './store.js';

/** Options of output inference (`codeMode.inferOutputs`). */
export interface InferOutputsOptions {
  /** Where inferred schemas persist (one small JSON file per tool version). @default ".isocode/inferred" in the working directory */
  dir?: string | undefined;
  /** Bounds of the inferred schemas. @default see {@link FoldLimits} */
  limits?: FoldLimits | undefined;
  /** Results waiting to be folded; more are dropped (counted). @default 64 */
  maxQueue?: number | undefined;
  /** Longest MCP `text` parsed as JSON, in characters. @default 262144 */
  maxTextChars?: number | undefined;
}

/** The `inferredOutput` a catalog entry carries into the SDK renderer. */
export interface InferredOutput {
  schema: InferredSchema;
  /** Results folded in when the schema last changed. */
  samples: number;
  /** `value`: the tool's value; `text`: the JSON in the `text` of an MCP text result. */
  of: InferredOf;
}

/** A catalog entry with its inferred output (what {@link OutputInference.augment} returns). */
export type InferredToolSchema = ToolSchema & { inferredOutput?: InferredOutput };

/** Counters of inference. */
export interface InferenceStats {
  folded: number;
  dropped: number;
  /** Times a folded schema changed (each re-renders the SDKs that show it). */
  changes: number;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The output of an upstream MCP tool without an outputSchema: `{ text: string, content: [...] }`. */
function isMcpTextShape(s: unknown): boolean {
  if (!isRec(s) || !isRec(s.properties)) return false;
  const p = s.properties;
  return (
    Object.keys(p).sort().join(',') === 'content,text' &&
    isRec(p.text) &&
    p.text.type === 'string' &&
    isRec(p.content) &&
    p.content.type === 'array'
  );
}

/** What is inferred of a tool, or undefined when it declares an output (then nothing is). */
export function inferredOf(t: ToolSchema): InferredOf | undefined {
  if (t.outputSchema === undefined) return 'value';
  return isMcpTextShape(t.outputSchema) ? 'text' : undefined;
}

/** The store key of a tool version: its name and definition. */
function keyOf(t: ToolSchema): string {
  return createHash('sha256')
    .update(JSON.stringify([t.name, t.description, t.inputSchema, t.outputSchema ?? null]))
    .digest('hex');
}

interface State {
  record: InferredRecord | undefined;
  /** Canonical JSON of the schema as last rendered. */
  rendered: string;
  dirty: boolean;
}

/** Output inference over a runtime's tools. */
export class OutputInference {
  readonly #store: InferenceStore;
  readonly #limits: FoldLimits;
  readonly #maxQueue: number;
  readonly #maxText: number;
  readonly #onChange: () => void;
  readonly #states = new Map<string, State>();
  readonly #keys = new WeakMap<ToolSchema, string>();
  #queue: { tool: () => ToolSchema | undefined; value: unknown }[] = [];
  #scheduled: Promise<void> | undefined;
  #version = 0;
  readonly #stats: InferenceStats = { folded: 0, dropped: 0, changes: 0 };

  constructor(options: InferOutputsOptions, onChange: () => void) {
    this.#limits = foldLimits(options.limits);
    this.#store = new InferenceStore(options.dir ?? '.isocode/inferred', this.#limits);
    this.#maxQueue = options.maxQueue ?? 64;
    this.#maxText = options.maxTextChars ?? 262_144;
    this.#onChange = onChange;
  }

  /** Bumped whenever a rendered inferred schema changes. */
  get version(): number {
    return this.#version;
  }

  stats(): InferenceStats {
    return { ...this.#stats };
  }

  #key(t: ToolSchema): string {
    let k = this.#keys.get(t);
    if (k === undefined) {
      k = keyOf(t);
      this.#keys.set(t, k);
    }
    return k;
  }

  #state(key: string): State {
    let s = this.#states.get(key);
    if (s === undefined) {
      const record = this.#store.read(key);
      s = { record, rendered: record ? JSON.stringify(record.schema) : '', dirty: false };
      this.#states.set(key, s);
    }
    return s;
  }

  /**
   * Queues a successful result for folding and returns at once; `tool` finds its catalog entry
   * later, off the call's path. Results of tools that declare an output are ignored; a full queue
   * drops the result.
   */
  observe(tool: () => ToolSchema | undefined, value: unknown): void {
    if (this.#queue.length >= this.#maxQueue) {
      this.#stats.dropped += 1;
      return;
    }
    this.#queue.push({ tool, value });
    this.#scheduled ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#scheduled = undefined;
        this.#drain();
        resolve();
      });
    });
  }

  /** The sample of a result, or undefined when there is nothing to infer (MCP text that is not JSON). */
  #sample(of: InferredOf, value: unknown): unknown {
    if (of === 'value') return value;
    const text = isRec(value) ? value.text : undefined;
    if (typeof text !== 'string' || text.length > this.#maxText) return undefined;
    const t = text.trimStart();
    if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  #drain(): void {
    const batch = this.#queue;
    this.#queue = [];
    let changed = false;
    for (const item of batch) {
      let tool: ToolSchema | undefined;
      try {
        tool = item.tool();
      } catch {
        tool = undefined;
      }
      const of = tool && inferredOf(tool);
      if (tool === undefined || of === undefined) continue;
      const sample = this.#sample(of, item.value);
      if (sample === undefined) continue;
      const key = this.#key(tool);
      const state = this.#state(key);
      const prior = state.record?.of === of ? state.record : undefined;
      const schema = foldSchema(prior?.schema, schemaOf(sample, this.#limits), this.#limits);
      const samples = (prior?.samples ?? 0) + 1;
      this.#stats.folded += 1;
      const json = JSON.stringify(schema);
      state.record = { tool: tool.name, of, samples, schema };
      state.dirty = true;
      if (json !== state.rendered) {
        state.rendered = json;
        changed = true;
        this.#stats.changes += 1;
        if (this.#store.write(key, state.record)) state.dirty = false;
      }
    }
    if (changed) {
      this.#version += 1;
      try {
        this.#onChange();
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /** Resolves once every queued result has been folded. */
  async flush(): Promise<void> {
    while (this.#scheduled) await this.#scheduled;
  }

  /**
   * The catalog with `inferredOutput` on each tool that declares no output and has an inferred
   * schema (from this process or the store). The sample count shown is the one of the last change,
   * so the SDK text changes only when a schema does.
   */
  augment(catalog: readonly ToolSchema[]): InferredToolSchema[] {
    return catalog.map((t) => {
      const of = inferredOf(t);
      if (of === undefined) return t;
      const state = this.#state(this.#key(t));
      const r = state.record;
      if (r?.of !== of) return t;
      return { ...t, inferredOutput: { schema: r.schema, samples: this.#shown(state), of } };
    });
  }

  /** The sample count as rendered: stored with the schema when it last changed. */
  #shown(state: State): number {
    const r = state.record as InferredRecord;
    const last = this.#lastChange.get(state);
    if (last === undefined || last.schema !== state.rendered) {
      this.#lastChange.set(state, { schema: state.rendered, samples: r.samples });
      return r.samples;
    }
    return last.samples;
  }

  readonly #lastChange = new WeakMap<State, { schema: string; samples: number }>();

  /** Folds what is queued and persists the sample counts not yet written. */
  async close(): Promise<void> {
    await this.flush();
    for (const [key, s] of this.#states) {
      if (s.dirty && s.record && this.#store.write(key, s.record)) s.dirty = false;
    }
  }
}
