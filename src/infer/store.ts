/**
 * The persistence of inferred output schemas: one small JSON file per tool version under a
 * directory, named by a hash of the tool's name and definition (so a changed upstream tool starts
 * afresh). Writes are atomic (a temporary file renamed over the old one); a file is capped in size
 * and validated when read; a bad file is ignored, never trusted.
 */
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isInferredSchema, type FoldLimits, type InferredSchema } from './fold.js';

/** What is inferred of a tool: its value, or the JSON in the `text` of an MCP text result. */
export type InferredOf = 'value' | 'text';

/** One tool version's inference. */
export interface InferredRecord {
  /** The tool's name (for people reading the directory). */
  tool: string;
  of: InferredOf;
  /** Successful results folded in. */
  samples: number;
  schema: InferredSchema;
}

/** Largest store file read or written, in bytes. */
export const MAX_STORE_FILE_BYTES = 64 * 1024;
const FORMAT = 1;
const KEY = /^[0-9a-f]{64}$/;

/** A directory of inferred schemas. */
export class InferenceStore {
  readonly #dir: string;
  readonly #limits: FoldLimits;
  #made = false;

  constructor(dir: string, limits: FoldLimits = {}) {
    this.#dir = dir;
    this.#limits = limits;
  }

  #path(key: string): string {
    if (!KEY.test(key)) throw new Error('bad store key');
    return join(this.#dir, `${key}.json`);
  }

  /** The record of a tool version, or undefined when absent, too large or not valid. */
  read(key: string): InferredRecord | undefined {
    try {
      const path = this.#path(key);
      if (statSync(path).size > MAX_STORE_FILE_BYTES) return undefined;
      const data = JSON.parse(readFileSync(path, 'utf8')) as unknown;
      if (typeof data !== 'object' || data === null) return undefined;
      const r = data as Record<string, unknown>;
      if (
        r.format !== FORMAT ||
        typeof r.tool !== 'string' ||
        (r.of !== 'value' && r.of !== 'text') ||
        !Number.isSafeInteger(r.samples) ||
        (r.samples as number) < 1 ||
        !isInferredSchema(r.schema, this.#limits)
      )
        return undefined;
      return { tool: r.tool, of: r.of, samples: r.samples as number, schema: r.schema };
    } catch {
      return undefined; // absent or unreadable: start afresh
    }
  }

  /** Writes a record atomically. Returns false (and writes nothing) when it would be too large or fails. */
  write(key: string, record: InferredRecord): boolean {
    const text = JSON.stringify({ format: FORMAT, ...record });
    if (Buffer.byteLength(text) > MAX_STORE_FILE_BYTES) return false;
    const path = this.#path(key);
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      if (!this.#made) {
        mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
        this.#made = true;
      }
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, path);
      return true;
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing was written
      }
      return false;
    }
  }
}
