/**
 * Hostile limits through the faces: checker bombs (a typed `typecheck` failure, or 422
 * LIMIT_EXCEEDED from /v1/check), queued-argument floods, one tenant's MCP session flood, and
 * DNS-rebinding names on the MCP face.
 */
import { afterEach, describe, it } from 'vitest';
import { startTenantFace, type TenantFace } from '../load/face.js';
import { CHECKER_BOMBS } from './classes.js';
import { mcpRefusesRebindingNames } from './rebinding.js';
import { mcpSessionFlood, queuedArgumentFlood } from './scenarios.js';
import { hostileSuite } from './suite.js';

hostileSuite('checker bombs', CHECKER_BOMBS, { via: 'run' });
hostileSuite('checker bombs', CHECKER_BOMBS, { via: 'check' });

describe('hostile limits', () => {
  let face: TenantFace | undefined;
  afterEach(async () => {
    await face?.close(5_000);
    face = undefined;
  });

  it('queued-argument flood: three concurrent runs queueing large nested-call arguments', async () => {
    face = await startTenantFace();
    await queuedArgumentFlood(face);
  }, 300_000);

  it("MCP sessions: one tenant's 110 sessions never evict another tenant's session", async () => {
    face = await startTenantFace({ face: 'mcp' });
    await mcpSessionFlood(face);
  }, 180_000);

  it('DNS rebinding: the MCP face refuses non-loopback Host and Origin names without a key; a key is judged alone', async () => {
    face = await startTenantFace({ face: 'mcp' });
    await mcpRefusesRebindingNames(face);
  }, 60_000);
});
