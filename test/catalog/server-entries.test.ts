import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';

/**
 * What PUT /api/servers/metadata/{name} accepts (docs/api.md#shapes, docs/health.md#catalog-servers-and-the-outbound-url-policy): URLs that pass the
 * outbound policy, a transport on create, spyglass.yaml's servers read-only, and a cap on servers
 * with a url per project. The writer is a project-bound admin, the caller the SSRF report names.
 */
const boot = bootstrapKey();
let dir: string;
let server: InProcessApp;
let p2Admin: string;

const put = (name: string, body: unknown, key = p2Admin) =>
  call(server.httpUrl, 'PUT', `/api/servers/metadata/${encodeURIComponent(name)}`, { key, body });
const catalog = async (project: string) =>
  expectStatus(
    await call(server.httpUrl, 'GET', `/api/servers/metadata?project_id=${project}`, { key: boot }),
    200,
    'list',
  ).json as { name: string; url: string | null; transport: string | null }[];

beforeAll(async () => {
  dir = tempDir();
  const config = writeConfig(dir, {
    monitor: { enabled: false, max_catalog_servers_per_project: 3 },
    servers: [{ name: 'yaml-server', transport: 'streamable_http', url: 'http://127.0.0.1:9/mcp' }],
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
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('catalog server URLs pass the outbound policy', () => {
  it.each([
    'http://127.0.0.1:8000/mcp',
    'http://localhost:6379/',
    'http://2130706433/',
    'http://[::ffff:127.0.0.1]/mcp',
    'http://[::1]/mcp',
    'http://10.0.0.5/mcp',
    'http://192.168.0.10/sse',
    'http://169.254.169.254/latest/meta-data/iam/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[fd00::1]/mcp',
    'http://[fe80::1]/mcp',
    'ftp://mcp.example.com/mcp',
  ])('refuses %s with 422, naming the policy', async (url) => {
    const r = await put('ssrf', { transport: 'streamable_http', url });
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'url'] });
    expect(r.json.detail[0].msg).toMatch(/refused by the outbound URL policy|http\(s\) URL/);
    expect((await catalog('p2')).some((e) => e.name === 'ssrf')).toBe(false);
  });

  it('accepts a public URL', async () => {
    const r = expectStatus(
      await put('public', { transport: 'streamable_http', url: 'https://mcp.example.com/mcp' }),
      200,
      'put',
    );
    expect(r.json).toMatchObject({
      name: 'public',
      url: 'https://mcp.example.com/mcp',
      project_id: 'p2',
    });
  });

  it('refuses a URL longer than 2048 characters', async () => {
    const r = await put('long', {
      transport: 'streamable_http',
      url: `https://mcp.example.com/${'a'.repeat(2100)}`,
    });
    expect(r.status).toBe(422);
    expect(r.json.detail[0].msg).toContain('longer than 2048');
  });
});

describe('transport (spec §2.12)', () => {
  it('is required when a server is added', async () => {
    const r = await put('no-transport', {
      description: 'forgot it',
      url: 'https://mcp.example.com/x',
    });
    expect(r.status).toBe(422);
    expect(r.json.detail[0]).toMatchObject({ loc: ['body', 'transport'], type: 'missing' });
    expect((await catalog('p2')).some((e) => e.name === 'no-transport')).toBe(false);
  });

  it("is read-only for a server configured in spyglass.yaml, whose url stays the operator's", async () => {
    const moved = await call(server.httpUrl, 'PUT', '/api/servers/metadata/yaml-server', {
      key: boot,
      body: { transport: 'sse', url: 'https://elsewhere.example.com/sse' },
    });
    expect(moved.status).toBe(422);
    expect(moved.json.detail.map((d: { loc: string[] }) => d.loc[1])).toEqual(['transport', 'url']);
    expect(moved.json.detail[0].msg).toContain('configured in spyglass.yaml');
    // Editing its other fields is fine and shows the configured transport.
    const edited = expectStatus(
      await call(server.httpUrl, 'PUT', '/api/servers/metadata/yaml-server', {
        key: boot,
        body: { description: 'from yaml', transport: 'streamable_http' },
      }),
      200,
      'edit',
    );
    expect(edited.json).toMatchObject({
      description: 'from yaml',
      transport: 'streamable_http',
      url: null,
    });
  });
});

describe('servers with a url per project (monitor.max_catalog_servers_per_project)', () => {
  it('refuses the one past the cap with 409, and counts per project', async () => {
    // 'public' above is the first of p2's three.
    for (const name of ['cap-2', 'cap-3'])
      expectStatus(
        await put(name, { transport: 'sse', url: `https://${name}.example.com/sse` }),
        200,
        name,
      );
    const over = await put('cap-4', { transport: 'sse', url: 'https://cap-4.example.com/sse' });
    expect(over.status).toBe(409);
    expect(over.json.detail).toContain('max_catalog_servers_per_project');
    // Entries without a url, and edits of those already counted, still work.
    expectStatus(
      await put('no-url', { transport: 'stdio', description: 'listed only' }),
      200,
      'no url',
    );
    expectStatus(await put('cap-3', { url: 'https://cap-3b.example.com/sse' }), 200, 'edit');
    // Another project has its own allowance.
    expectStatus(
      await call(server.httpUrl, 'PUT', '/api/servers/metadata/cap-1?project_id=default', {
        key: boot,
        body: { transport: 'sse', url: 'https://d.example.com/sse' },
      }),
      200,
      'default',
    );
    expect((await catalog('p2')).filter((e) => e.url).length).toBe(3);
  });
});
