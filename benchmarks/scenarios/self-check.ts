/**
 * The self-check every engine passes before it is measured: a known program must return a
 * literal value, the realistic program must return what the tool bodies compute, and a
 * direct call must work. A broken engine fails loudly instead of producing fast nonsense.
 */
import type { EngineFactory } from '../engines/types.js';
import { buildCatalog } from './catalog.js';
import { CHECK_EXPECTED, CHECK_PROGRAM, REALISTIC_PROGRAM, realisticExpected } from './programs.js';

/** Resolves to `undefined` when the engine passes, else to what went wrong. */
export async function selfCheck(factory: EngineFactory): Promise<string | undefined> {
  const catalog = buildCatalog(10);
  let engine;
  try {
    engine = await factory.create();
    await engine.setup(catalog);
    const check = await engine.runProgram(CHECK_PROGRAM);
    if (!check.ok) return `check program failed: ${check.error ?? 'no error given'}`;
    if (JSON.stringify(check.result) !== JSON.stringify(CHECK_EXPECTED)) {
      return `check program returned ${JSON.stringify(check.result)}, expected ${JSON.stringify(CHECK_EXPECTED)}`;
    }
    const realistic = await engine.runProgram(REALISTIC_PROGRAM);
    const expected = JSON.stringify(realisticExpected(catalog));
    if (!realistic.ok) return `realistic program failed: ${realistic.error ?? 'no error given'}`;
    if (JSON.stringify(realistic.result) !== expected) {
      return `realistic program returned ${JSON.stringify(realistic.result)}, expected ${expected}`;
    }
    if (engine.callDirect !== undefined) {
      const direct = await engine.callDirect('math.add', { a: 1, b: 2 });
      if (!direct.ok || JSON.stringify(direct.result) !== '{"sum":3}') {
        return `direct call returned ${JSON.stringify(direct)}`;
      }
    }
    return undefined;
  } catch (error) {
    return `threw: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await engine?.close().catch(() => undefined);
  }
}
