/** Shared SDK types. */

/** Something in a tool's schema the generator could not express exactly; the part became `unknown`. */
export interface SdkWarning {
  /** The tool's name (empty for a standalone {@link jsonSchemaToTs} call). */
  tool: string;
  /**
   * A JSON pointer into the tool entry (`/inputSchema/properties/when/type`), or into the schema for a
   * standalone conversion.
   */
  pointer: string;
  message: string;
}
