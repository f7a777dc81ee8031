import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from '../helpers/auth.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';

// Local mode (no key anywhere, loopback): every caller is an admin, so a page on another site that
// can POST here acts as that admin unless the Origin/Host rule stops it.
let server: TestServer;
let config: ReturnType<typeof configFile>;
let port: number;
const ALLOWED = 'https://dashboard.example.com';

beforeAll(async () => {
  config = configFile(`http:\n  allowed_origins: ["${ALLOWED}"]\n`);
  server = await startTestServer({ SPYGLASS_CONFIG: config.path, SPYGLASS_RATE_LIMITS: 'off' });
  port = Number(new URL(server.httpUrl).port);
});
afterAll(async () => {
  await server?.dispose();
  config?.remove();
});

const raw = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  rawRequest(port, method, path, headers, body);

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const writeRoutes = () => server.app.routeList.filter((r) => WRITES.has(r.method));
const fill = (url: string) => url.replace(/:[a-z_]+/g, 'x');

describe('state-changing REST requests from a browser on another site', () => {
  it('are refused on every POST, PUT, PATCH and DELETE route before anything runs', async () => {
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThan(30);
    for (const r of routes) {
      const path = fill(r.url);
      const foreign = await raw(r.method, path, { origin: 'http://evil.example' });
      expect(foreign.status, `${r.method} ${r.url} from http://evil.example: ${foreign.body}`).toBe(
        403,
      );
      expect(foreign.body, `${r.method} ${r.url}`).toContain('cross-origin request refused');
      const opaque = await raw(r.method, path, { origin: 'null' });
      expect(opaque.status, `${r.method} ${r.url} from an opaque origin`).toBe(403);
      // DNS rebinding: the page's own name now points at 127.0.0.1, so it looks same-origin.
      const rebound = await raw(r.method, path, {
        origin: `http://rebind.evil.example:${port}`,
        host: `rebind.evil.example:${port}`,
      });
      expect(rebound.status, `${r.method} ${r.url} after DNS rebinding`).toBe(403);
    }
  });

  it('are refused for the actions the review named, with or without a body', async () => {
    for (const path of [
      '/api/security/scan',
      '/api/health/check',
      '/api/agents/discover',
      '/api/servers/discover',
      '/api/alerts/test',
    ]) {
      expect((await raw('POST', path, { origin: 'http://evil.example' })).status, path).toBe(403);
      expect((await raw('POST', path, { origin: 'http://evil.example' }, '{}')).status, path).toBe(
        403,
      );
    }
    // Nothing was discovered or stored by the refused requests.
    const agents = await raw('GET', '/api/agents/metadata', {});
    expect(JSON.parse(agents.body)).toEqual([]);
  });
});

describe('the same requests from clients that are not browsers, or from allowed pages', () => {
  it('ingest spans without an Origin (SDKs, OTel exporters), from loopback pages and from allowed origins', async () => {
    const send = (headers: Record<string, string>, session: string) =>
      raw(
        'POST',
        '/api/traces/spans',
        headers,
        JSON.stringify([nativeSpan({ session_id: session })]),
      );
    for (const [headers, session] of [
      [{}, 'no-origin'],
      [{ origin: `http://localhost:${port}` }, 'loopback'],
      [{ origin: ALLOWED, host: 'dashboard.example.com' }, 'allowed'],
      [{ origin: `http://127.0.0.1:${port}` }, 'same-origin'],
    ] as const) {
      const res = await send(headers, session);
      expect(res.status, `${JSON.stringify(headers)}: ${res.body}`).toBeLessThan(300);
    }
    const otlp = await raw('POST', '/v1/traces', {}, JSON.stringify({ resourceSpans: [] }));
    expect(otlp.status).toBe(200);
  });

  it('still act without an Origin, as the CLI does', async () => {
    const res = await raw('POST', '/api/agents/discover', {});
    expect(res.status, res.body).toBe(200);
  });
});
