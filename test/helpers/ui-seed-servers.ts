import { rmSync } from 'node:fs';
import { stdioFixture, tempDir, writeConfig } from '../health/helpers.ts';
import { bootstrapKey, call, createKey, expectStatus } from './auth.ts';
import { freePort } from './free-port.ts';
import { nativeSpan } from './spans.ts';
import { seedSpans, startUi, type UiServer } from './ui.ts';

export interface ServersUi {
  ui: UiServer;
  /** API keys for the browser's sign-in and the test's own calls. */
  admin: string;
  viewer: string;
  /** GraphQL over HTTP with the admin key; returns `data` (fails on errors). */
  gql(query: string, variables?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/**
 * A real server with two configured MCP servers, `alpha` (test/fixtures/mcp/stdio-server.ts, up)
 * and `beta` (a closed loopback port, down), checked and scanned once through the REST API, and
 * a span calling `filesystem` so the catalog also holds a server that is only observed.
 */
export async function startServersUi(): Promise<ServersUi> {
  const dir = tempDir();
  const closed = await freePort();
  const config = writeConfig(dir, {
    monitor: { enabled: false },
    servers: [
      stdioFixture('alpha', 'normal'),
      { name: 'beta', transport: 'streamable_http', url: `http://127.0.0.1:${closed}/mcp` },
    ],
  });
  const boot = bootstrapKey();
  const ui = await startUi({
    SPYGLASS_CONFIG: config,
    SPYGLASS_API_KEYS: boot,
    SPYGLASS_RATE_LIMITS: 'off',
  });
  const admin = (await createKey(ui.base, boot, { role: 'admin', name: 'ui admin' })).key;
  const viewer = (await createKey(ui.base, boot, { role: 'viewer', name: 'ui viewer' })).key;
  expectStatus(await call(ui.base, 'POST', '/api/health/check', { key: admin }), 200, 'check');
  expectStatus(
    await call(ui.base, 'POST', '/api/security/scan', { key: admin, body: {} }),
    200,
    'scan',
  );
  await seedSpans(ui.base, [nativeSpan({ server_name: 'filesystem' })], admin);
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const r = expectStatus(
      await call(ui.base, 'POST', '/graphql', { key: admin, body: { query, variables } }),
      200,
      'graphql',
    );
    if (r.json.errors) throw new Error(JSON.stringify(r.json.errors));
    return r.json.data;
  };
  return {
    ui,
    admin,
    viewer,
    gql,
    close: async () => {
      await ui.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
