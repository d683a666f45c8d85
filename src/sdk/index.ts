/** SDK bindings: tool catalogs (JSON Schema) → the TypeScript declarations a `run_code` program uses. */
export { type SdkBinding, sdkBindings } from './bindings.js';
export {
  type RenderSdkOptions,
  type RenderedSdk,
  renderSdk,
  renderInstructions,
  renderSdkPrompt,
} from './render.js';
export {
  type JsonSchemaToTsOptions,
  type JsonSchemaToTsResult,
  jsonSchemaToTs,
} from './schema-to-ts.js';
export { type SdkStats, type TextSize, sdkStats, wireText } from './stats.js';
export type { SdkWarning } from './types.js';
