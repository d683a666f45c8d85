/** Tool naming rules. */
import { IsocodeError } from '../errors.js';

/** The reserved name of the code-mode transport tool. It cannot be registered by users. */
export const RUN_CODE = 'run_code';

/**
 * The tool name rule: letters, digits, `_`, `-` and `.`, 1 to 64 characters. Dots separate
 * namespaces (`fs.read_file`); a name may not start or end with a dot or contain `..`.
 */
export const TOOL_NAME_PATTERN = /^(?!\.)(?!.*\.\.)(?!.*\.$)[A-Za-z0-9_.-]{1,64}$/;

/** True when `name` satisfies {@link TOOL_NAME_PATTERN}. */
export function isValidToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME_PATTERN.test(name);
}

/** Throws INVALID_TOOL_DEFINITION when `name` is not a valid, non-reserved tool name. */
export function assertRegistrableName(name: unknown): asserts name is string {
  if (!isValidToolName(name)) {
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `invalid tool name ${JSON.stringify(name)}: use letters, digits, "_", "-" and "." (1-64 characters, no leading, trailing or double dot)`,
    );
  }
  if (name === RUN_CODE) {
    throw new IsocodeError(
      'INVALID_TOOL_DEFINITION',
      `"${RUN_CODE}" is reserved for the code-mode transport and cannot be registered`,
    );
  }
}
