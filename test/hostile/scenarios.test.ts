/**
 * Hostile scenarios through the faces that hold today: a flood of concurrent legal runs (answered or
 * refused with Retry-After, the other tenant not starved, RSS within budget), cross-tenant probes on
 * the type-checker, and DNS-rebinding Host names on `isocode serve`.
 */
import { afterEach, describe, it } from 'vitest';
import { startTenantFace, type TenantFace } from '../load/face.js';
import { serveRefusesRebindingHosts } from './rebinding.js';
import { checkerProbes, concurrentRunFlood, VAULT_CONFIG } from './scenarios.js';

describe('hostile scenarios through isocode serve', () => {
  let face: TenantFace | undefined;
  afterEach(async () => {
    await face?.close(5_000);
    face = undefined;
  });

  it('concurrent-run flood: 30 legal runs of one tenant', async () => {
    face = await startTenantFace();
    await concurrentRunFlood(face);
  }, 180_000);

  it("cross-tenant probes on the checker: no trace of the other scope's tools", async () => {
    face = await startTenantFace(VAULT_CONFIG);
    await checkerProbes(face);
  }, 180_000);

  it('DNS rebinding: an anonymous service refuses non-loopback Host names', async () => {
    face = await startTenantFace({
      extra: { server: { host: '127.0.0.1', port: 0, apiKeys: [] } },
    });
    await serveRefusesRebindingHosts(face);
  }, 60_000);
});
