/** DNS-rebinding probes: a page on an attacker's name that resolves to 127.0.0.1 reaches a face. */
import { expect } from 'vitest';
import type { TenantFace } from '../load/face.js';
import { initializeRequest } from '../support/mcp-initialize.js';
import { postWithHost, REBINDING_NAMES } from './scenarios.js';

const INITIALIZE = JSON.stringify(initializeRequest('probe'));

/** Anonymous `isocode serve`: a request addressed to a non-loopback Host is refused. */
export async function serveRefusesRebindingHosts(face: TenantFace): Promise<void> {
  const body = JSON.stringify({ code: 'return 1;', description: 'rebinding' });
  for (const name of REBINDING_NAMES) {
    const status = await postWithHost(`${face.server.url}/v1/run`, { host: name }, body);
    expect(status, `Host: ${name}`).toBeGreaterThanOrEqual(400);
  }
  expect(await postWithHost(`${face.server.url}/v1/run`, { host: '127.0.0.1' }, body)).toBe(200);
}

/**
 * `isocode mcp --http`: without a key, a non-loopback Host or Origin is refused (a rebinding page
 * cannot know a key); a request with a valid key is judged by the key alone (decision record 011).
 */
export async function mcpRefusesRebindingNames(face: TenantFace): Promise<void> {
  const auth = { authorization: `Bearer ${face.setup.tenants[0].key}` };
  const port = new URL(face.server.url).port;
  for (const name of REBINDING_NAMES) {
    expect(
      await postWithHost(face.server.url, { host: `${name}:${port}` }, INITIALIZE),
      `Host: ${name}`,
    ).toBeGreaterThanOrEqual(400);
    expect(
      await postWithHost(face.server.url, { origin: `http://${name}:${port}` }, INITIALIZE),
      `Origin: ${name}`,
    ).toBeGreaterThanOrEqual(400);
    expect(
      await postWithHost(face.server.url, { ...auth, host: `${name}:${port}` }, INITIALIZE),
      `Host: ${name} with a key`,
    ).toBe(200);
  }
  expect(await postWithHost(face.server.url, auth, INITIALIZE)).toBe(200);
}
