import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_DIR, registerUiRoutes } from '../../src/rest/ui-routes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The dashboard at / (docs/ui.md): caching, client-route fallback, CSP, API paths unchanged. */
describe('serving the dashboard', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer();
    base = server.httpUrl;
  });
  afterAll(async () => server?.dispose());

  it('answers / with index.html, never cached, under a strict CSP', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain(`connect-src 'self' ws://${new URL(base).host}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain('<div id="app">');
    expect(html).not.toMatch(/<script>[^<]/); // no inline script
  });

  it('serves client routes with the app and hashed assets with a long cache', async () => {
    const route = await fetch(`${base}/sessions/abc?tab=tree`);
    expect(route.status).toBe(200);
    expect(await route.text()).toContain('<div id="app">');
    const js = readdirSync(join(UI_DIR, 'assets')).find((f) => f.endsWith('.js'));
    const asset = await fetch(`${base}/assets/${js}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${base}/assets/nope.js`)).status).toBe(404);
    expect([403, 404]).toContain((await fetch(`${base}/assets/..%2f..%2fpackage.json`)).status);
  });

  it('leaves API paths their meaning: unknown ones are JSON 404s', async () => {
    for (const path of ['/api/nope', '/graphql/x', '/v1/nope', '/metrics/x']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ detail: `no route GET ${path}` });
    }
    expect((await fetch(`${base}/api/liveness`)).status).toBe(200);
    const post = await fetch(`${base}/sessions`, { method: 'POST' });
    expect(post.status).toBe(404);
    const gql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ projects { id } }' }),
    });
    expect(gql.status).toBe(200);
  });

  it('without a build, / says how to build the dashboard', async () => {
    const app = Fastify();
    await registerUiRoutes(app, join(UI_DIR, 'missing'));
    const res = await app.inject({ url: '/sessions' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
    await app.close();
  });
});
