import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertCatalogEntry } from '../../src/store/catalog-repo.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { bootstrapKey, call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { tempDir, writeConfig } from './helpers.ts';

/**
 * Health checks of API-supplied URLs (docs/health.md#catalog-servers-and-the-outbound-url-policy). The operator opens 127.0.0.1/32 only, where
 * the fixtures listen; a listener on 127.0.0.3 stands for an internal service and must never see a
 * connection. spyglass.yaml servers are trusted as written. Only loopback is ever contacted.
 */
const boot = bootstrapKey();
let dir: string;
let fx: HttpFixtures;
let server: InProcessApp;
let internal: Server;
let internalUrl: string;
let internalConnections = 0;
let p2Admin: string;

const check = async (name: string, project: string, key = p2Admin) => {
  const r = expectStatus(
    await call(server.httpUrl, 'POST', '/api/health/check', {
      key,
      body: { server_name: name, project_id: project },
    }),
    200,
    `check ${name}`,
  );
  return r.json[0] as { status: string; error: string | null; tools_count: number | null };
};
const putServer = async (name: string, url: string) =>
  expectStatus(
    await call(server.httpUrl, 'PUT', `/api/servers/metadata/${name}?project_id=p2`, {
      key: p2Admin,
      body: { transport: 'streamable_http', url },
    }),
    200,
    `put ${name}`,
  );

beforeAll(async () => {
  dir = tempDir();
  fx = await startHttpFixtures();
  internal = createServer((s) => {
    internalConnections++;
    s.end('HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\ninternal data');
  });
  internal.listen(0, '127.0.0.3');
  await once(internal, 'listening');
  internalUrl = `http://127.0.0.3:${(internal.address() as AddressInfo).port}`;
  const config = writeConfig(dir, {
    monitor: { enabled: false },
    network: { allow_private_targets: ['127.0.0.1/32'] },
    servers: [
      {
        name: 'yaml-internal',
        transport: 'streamable_http',
        url: `${internalUrl}/mcp`,
        timeout_seconds: 5,
      },
      { name: 'yaml-auth', transport: 'streamable_http', url: `${fx.url}/auth/mcp` },
    ],
  });
  server = await startInProcessApp({
    SPYGLASS_CONFIG: config,
    SPYGLASS_API_KEYS: boot,
    SPYGLASS_RATE_LIMITS: 'off',
  });
  await createProject(server.httpUrl, boot, 'p2');
  p2Admin = (await createKey(server.httpUrl, boot, { role: 'admin', project_id: 'p2' })).key;
});

afterAll(async () => {
  await server?.close();
  await fx?.close();
  internal?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('checks of catalog URLs follow the outbound policy', () => {
  it('a catalog server on an address the operator opened is checked normally', async () => {
    await putServer('fixture', `${fx.url}/ok/fixture/mcp`);
    expect(await check('fixture', 'p2')).toMatchObject({
      status: 'up',
      tools_count: 2,
      error: null,
    });
  });

  it('an entry whose address is refused is down, names the policy, and no connection is made', async () => {
    // Stored before the policy existed (or by a name that now resolves elsewhere): the check refuses it.
    await upsertCatalogEntry(server.services.store.db, 'server', 'p2', 'internal', {
      transport: 'streamable_http',
      url: `${internalUrl}/mcp`,
    });
    const r = await check('internal', 'p2');
    expect(r.status).toBe('down');
    expect(r.error).toBe(
      'refused by the outbound URL policy: the host is a loopback address, not listed in network.allow_private_targets',
    );
    expect(internalConnections).toBe(0);
  });

  it('a redirect to a refused address is refused, without the answer', async () => {
    await putServer(
      'redirected',
      `${fx.url}/redirect/${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
    );
    const r = await check('redirected', 'p2');
    expect(r.status).toBe('down');
    expect(r.error).toMatch(
      /^refused by the outbound URL policy: redirect refused, the host is a link-local \(cloud metadata\) address/,
    );
    expect(r.error).not.toContain('secret redirect body');
  });

  it('errors never repeat what the target answered (WWW-Authenticate, JSON-RPC messages)', async () => {
    await putServer('auth', `${fx.url}/auth/mcp`);
    expect(await check('auth', 'p2')).toMatchObject({
      status: 'down',
      error: 'authentication failed (HTTP 401)',
    });
    await putServer('failing', `${fx.url}/fail-list/mcp`);
    const failing = await check('failing', 'p2');
    expect(failing.status).toBe('down');
    expect(failing.error).toBe('tools/list failed: JSON-RPC error -32603');
    expect(failing.error).not.toContain('tool registry unavailable');
  });
});

describe('spyglass.yaml servers are trusted as written', () => {
  it('reach any address the operator wrote, with the full error text', async () => {
    const yamlInternal = await check('yaml-internal', 'default', boot);
    expect(yamlInternal.status).toBe('down'); // it answers plain text, not MCP; what matters is that it was reached
    expect(internalConnections).toBeGreaterThan(0);
    const auth = await check('yaml-auth', 'default', boot);
    expect(auth.error).toMatch(
      /^authentication failed \(HTTP 401\); WWW-Authenticate: Bearer resource_metadata=/,
    );
  });
});
