/**
 * Rebuilds a transpiled program's `mapPosition` from its serialisable {@link PositionMap}: pure JS (no
 * transpiler), so a process that only received the map (as JSON) can map runtime positions back.
 */

import { decodeMappings, originalPosition } from './sourcemap.js';
import type { MapPosition, PositionMap } from './types.js';

/**
 * The `mapPosition` function of `map`: a 1-based (line, column) in the transpiled `js` → the program's own
 * 1-based position, `undefined` inside the wrapper. The mappings are decoded on the first call only.
 */
export function positionMapper(map: PositionMap): MapPosition {
  const { mappings, prefixLines, programLines } = map;
  let decoded: ReturnType<typeof decodeMappings> | undefined;
  return (line, column) => {
    if (!Number.isInteger(line) || !Number.isInteger(column) || mappings === '') return undefined;
    decoded ??= decodeMappings(mappings);
    const pos = originalPosition(decoded, line - 1, column - 1);
    if (pos === undefined) return undefined;
    const programLine = pos.line - prefixLines + 1;
    if (programLine < 1 || programLine > programLines) return undefined;
    return { line: programLine, column: pos.column + 1 };
  };
}
