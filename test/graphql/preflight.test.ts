import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, configFile } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

// Authentication on: a dashboard on an allowed origin calls /graphql with X-API-Key, which makes the
// browser send a preflight first, without the key (browsers never put credentials on one).
const ADMIN = bootstrapKey();
const DASHBOARD = 'https://dashboard.example.com';
let server: InProcessApp;
let config: ReturnType<typeof configFile>;

beforeAll(async () => {
  config = configFile(`http:\n  allowed_origins: ["${DASHBOARD}"]\n`);
  server = await startInProcessApp({
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_CONFIG: config.path,
    SPYGLASS_RATE_LIMITS: 'off',
  });
});
afterAll(async () => {
  await server?.close();
  config?.remove();
});

const preflight = (origin: string) =>
  call(server.httpUrl, 'OPTIONS', '/graphql', {
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-api-key',
    },
  });

describe('CORS preflight of /graphql', () => {
  it('is answered without a key for an allowed origin, and the real request then needs the key', async () => {
    for (const origin of [DASHBOARD, 'http://localhost:5173']) {
      const res = await preflight(origin);
      expect(res.status, `${origin}: ${res.text}`).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
    }
    const withoutKey = await call(server.httpUrl, 'POST', '/graphql', {
      headers: { origin: DASHBOARD },
      body: { query: '{ projects { id } }' },
    });
    expect(withoutKey.status).toBe(401);
    const withKey = await call(server.httpUrl, 'POST', '/graphql', {
      key: ADMIN,
      headers: { origin: DASHBOARD },
      body: { query: '{ projects { id } }' },
    });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    expect(withKey.json.data.projects).toEqual(expect.any(Array));
  });

  it('is refused for a foreign origin, with no CORS headers a browser could use', async () => {
    const res = await preflight('http://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is only a preflight with the headers a browser sends: a bare OPTIONS still needs a key', async () => {
    const res = await call(server.httpUrl, 'OPTIONS', '/graphql', {
      headers: { origin: DASHBOARD },
    });
    expect(res.status).toBe(401);
  });
});
