import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';
import { fetchUrl } from '../helpers/inject-fetch.ts';

let server: InProcessApp;
const put = (path: string, body: unknown) =>
  fetchUrl(`${server.httpUrl}${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));

beforeAll(async () => {
  server = await startInProcessApp({ SPYGLASS_RATE_LIMITS: 'off' });
});
afterAll(async () => server?.close());

describe('agent and server catalogs', () => {
  it('creates, reads, updates and deletes server entries with validation', async () => {
    expect(
      (await put('/api/servers/metadata/github', { transport: 'sse' })).json.detail[0],
    ).toMatchObject({ loc: ['body', 'url'], type: 'missing' });
    expect(
      (await put('/api/servers/metadata/github', { transport: 'carrier-pigeon' })).status,
    ).toBe(422);
    expect(
      (await put('/api/servers/metadata/github', { tags: 'prod' })).json.detail[0].loc,
    ).toEqual(['body', 'tags']);
    const created = await put('/api/servers/metadata/github', {
      transport: 'streamable_http',
      url: 'https://mcp.example.com/mcp',
      description: 'GitHub tools',
      tags: ['scm'],
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      name: 'github',
      transport: 'streamable_http',
      url: 'https://mcp.example.com/mcp',
      tags: ['scm'],
      source: 'user',
      project_id: 'default',
    });
    const updated = await put('/api/servers/metadata/github', { owner: 'platform' });
    expect(updated.json).toMatchObject({
      owner: 'platform',
      description: 'GitHub tools',
      tags: ['scm'],
    });
    expect((await getJson(`${server.httpUrl}/api/servers/metadata/github`)).json.owner).toBe(
      'platform',
    );
    expect(
      (await fetchUrl(`${server.httpUrl}/api/servers/metadata/github`, { method: 'DELETE' }))
        .status,
    ).toBe(204);
    expect((await getJson(`${server.httpUrl}/api/servers/metadata/github`)).status).toBe(404);
    expect(
      (await fetchUrl(`${server.httpUrl}/api/servers/metadata/github`, { method: 'DELETE' }))
        .status,
    ).toBe(404);
  });

  it('discovers names from stored spans that the catalog lacks', async () => {
    await postJson(`${server.httpUrl}/api/traces/spans`, [
      nativeSpan({ agent_name: 'scout', server_name: 'maps' }),
      nativeSpan({ agent_name: 'scout', server_name: 'weather' }),
    ]);
    // Auto-registration already added them; remove one of each and let discovery find them again.
    await fetchUrl(`${server.httpUrl}/api/agents/metadata/scout`, { method: 'DELETE' });
    await fetchUrl(`${server.httpUrl}/api/servers/metadata/weather`, { method: 'DELETE' });
    expect((await postJson(`${server.httpUrl}/api/agents/discover`, {})).json).toEqual({
      discovered: 1,
      agents: ['scout'],
    });
    expect((await postJson(`${server.httpUrl}/api/servers/discover`, {})).json).toEqual({
      discovered: 1,
      servers: ['weather'],
    });
    expect((await postJson(`${server.httpUrl}/api/servers/discover`, {})).json).toEqual({
      discovered: 0,
      servers: [],
    });
    const agent = (await getJson(`${server.httpUrl}/api/agents/metadata/scout`)).json;
    expect(agent).toMatchObject({
      description: 'Auto-discovered from traces',
      status: 'active',
      source: 'auto',
    });
  });

  it('validates agent status', async () => {
    expect(
      (await put('/api/agents/metadata/scout', { status: 'sleeping' })).json.detail[0],
    ).toMatchObject({ loc: ['body', 'status'], type: 'enum' });
    expect(
      (
        await put('/api/agents/metadata/scout', {
          status: 'deprecated',
          runbook_url: 'https://wiki/scout',
        })
      ).json,
    ).toMatchObject({ status: 'deprecated', runbook_url: 'https://wiki/scout' });
  });
});

describe('catalogs over GraphQL', () => {
  const gql = async (query: string) =>
    (await postJson(`${server.httpUrl}/graphql`, { query })).json;

  it('reads, writes, deletes and discovers entries like REST', async () => {
    const put = await gql(
      'mutation { putServer(name: "jira", input: { transport: "streamable_http", url: "https://jira.example.com/mcp", tags: ["tickets"] }) { name transport url tags source } }',
    );
    expect(put.data.putServer).toEqual({
      name: 'jira',
      transport: 'streamable_http',
      url: 'https://jira.example.com/mcp',
      tags: ['tickets'],
      source: 'user',
    });
    const bad = await gql(
      'mutation { putServer(name: "jira", input: { transport: "telegraph" }) { name } }',
    );
    expect(bad.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 422 });
    expect((await getJson(`${server.httpUrl}/api/servers/metadata/jira`)).json.tags).toEqual([
      'tickets',
    ]);
    const list = await gql(
      '{ servers { name } agents { name status } agent(name: "scout") { name status runbookUrl } }',
    );
    expect(list.data.servers.map((s: any) => s.name)).toContain('jira');
    expect(list.data.agent).toEqual({
      name: 'scout',
      status: 'deprecated',
      runbookUrl: 'https://wiki/scout',
    });
    expect((await gql('mutation { deleteServer(name: "jira") }')).data.deleteServer).toBe(true);
    expect((await gql('{ server(name: "jira") { name } }')).errors[0].extensions.status).toBe(404);
    await fetchUrl(`${server.httpUrl}/api/agents/metadata/scout`, { method: 'DELETE' });
    expect(
      (await gql('mutation { discoverAgents { discovered names } }')).data.discoverAgents,
    ).toEqual({ discovered: 1, names: ['scout'] });
  });
});
