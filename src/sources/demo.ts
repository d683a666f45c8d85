/** The zero-configuration demo tool set. */
import type { ToolDefinition } from '../index.js';
import { kvTools } from './demo-kv.js';
import { textTools } from './demo-text.js';

/**
 * The built-in demo tools: an in-memory key-value store (`kv.get`, `kv.set`, `kv.delete`,
 * `kv.list`) and a text toolkit (`text.word_count`, `text.transform`, `text.split_lines`,
 * `text.search`). Each call returns tools over a fresh, empty store, so every runtime built from
 * its own call has its own data.
 */
export function builtinDemoTools(): ToolDefinition[] {
  return [...kvTools(), ...textTools()];
}
