import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { configFile } from '../helpers/auth.ts';
import { openWs } from '../helpers/graphql-ws.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// Local mode: no key exists and the server listens on loopback, so every caller is an admin.
// Only the Origin and Host checks stand between a web page the developer visits and that admin.
let server: TestServer;
let config: ReturnType<typeof configFile>;
let port: number;

beforeAll(async () => {
  config = configFile('http:\n  allowed_origins: ["https://dashboard.example.com"]\n');
  server = await startTestServer({ SPYGLASS_CONFIG: config.path, SPYGLASS_RATE_LIMITS: 'off' });
  port = Number(new URL(server.httpUrl).port);
});
afterAll(async () => {
  await server?.dispose();
  config?.remove();
});

const raw = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  rawRequest(port, method, path, headers, body);

function upgrade(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws', { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

const CREATE = JSON.stringify({
  query: 'mutation { createProject(id: "evil", name: "Evil") { id } }',
});

describe('browser-reachable endpoints in local mode', () => {
  it('refuse a WebSocket upgrade from another site before any GraphQL runs', async () => {
    expect(await upgrade({ origin: 'https://evil.example' })).toBe(403);
    expect(await upgrade({ origin: 'null' })).toBe(403);
    // The same page after DNS rebinding: same-origin, but the Host is a name we do not answer to.
    expect(
      await upgrade({
        origin: `http://rebind.evil.example:${port}`,
        host: `rebind.evil.example:${port}`,
      }),
    ).toBe(403);
    expect(await upgrade({ origin: `http://localhost:${port}` })).toBe(101);
    expect(await upgrade({ origin: 'https://dashboard.example.com' })).toBe(101);
    // Not a browser (CLI, SDK): no Origin, nothing to check.
    expect(await upgrade({})).toBe(101);
  });

  it('refuse cross-site GraphQL over HTTP, so a page cannot create projects', async () => {
    const evil = await raw('POST', '/graphql', { origin: 'https://evil.example' }, CREATE);
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).errors[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN', status: 403 },
    });
    expect(JSON.parse(evil.body).errors[0].message).toMatch(
      /^cross-origin request refused: Origin https:\/\/evil\.example is not allowed/,
    );
    const rebound = await raw(
      'POST',
      '/graphql',
      { origin: `http://rebind.evil.example:${port}`, host: `rebind.evil.example:${port}` },
      CREATE,
    );
    expect(rebound.status).toBe(403);
    const sameSite = await raw('GET', '/graphql?query=%7Bprojects%7Bid%7D%7D', {
      host: `rebind.evil.example:${port}`,
      'sec-fetch-site': 'same-origin',
      accept: 'application/json',
    });
    expect(sameSite.status).toBe(403);
    const projects = await raw(
      'POST',
      '/graphql',
      { origin: `http://127.0.0.1:${port}` },
      JSON.stringify({ query: '{ projects { id } }' }),
    );
    expect(projects.status).toBe(200);
    expect(JSON.parse(projects.body).data.projects.map((p: { id: string }) => p.id)).not.toContain(
      'evil',
    );
  });

  it('refuse a cross-site SSE stream and WebSocket subscriptions from pages that are not allowed', async () => {
    const sse = await raw('GET', '/api/live/events', {
      origin: 'https://evil.example',
      accept: 'text/event-stream',
    });
    expect(sse.status).toBe(403);
    expect(JSON.parse(sse.body).detail).toMatch(/^cross-origin request refused/);
    const ws = await openWs(server.httpUrl, {}, { origin: `http://localhost:${port}` });
    await ws.dispose();
  });
});
