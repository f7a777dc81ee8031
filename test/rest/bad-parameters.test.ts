import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, readReply, type Reply } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/**
 * Hostile path and query parameters on every registered route (app.routeList, as in
 * test/auth/route-matrix.test.ts): NUL, other control characters, broken UTF-16 and out-of-range
 * numbers must give a 4xx, never a 500 from storage. In-process (app.inject()), thousands of
 * requests: every hostile value is percent-encoded, so it crosses a socket as plain ASCII and
 * Fastify decodes it the same way from an injected request.
 */

const ADMIN = bootstrapKey();

/** Sends and reads at most the head of the answer: a stream must not keep the test waiting. */
async function send(base: InProcessApp, method: string, path: string): Promise<Reply> {
  return readReply(
    await base.fetch(path, {
      method,
      headers: { 'x-api-key': ADMIN },
      signal: AbortSignal.timeout(15_000),
    }),
  );
}

const fill = (url: string, value: string) => url.replace(/:\w+/g, value);

describe('hostile parameters on every route', () => {
  let server: InProcessApp;
  let base: InProcessApp;

  beforeAll(async () => {
    server = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
    base = server;
  });
  afterAll(async () => server?.close());

  const hostile = ['%00', 'a%00b', '%01', '%1B%5B2J', '%7F'];

  it('NUL or other control characters in any path parameter: 400 naming the parameter', async () => {
    const wrong: string[] = [];
    let cells = 0;
    for (const route of server.app.routeList.filter((r) => r.url.includes(':'))) {
      for (const value of hostile) {
        const r = await send(base, route.method, fill(route.url, value));
        cells++;
        if (r.status !== 400 || !String(r.json?.detail).startsWith('path parameter '))
          wrong.push(
            `${route.method} ${route.url} with ${value}: ${r.status} ${r.text.slice(0, 120)}`,
          );
      }
    }
    expect(wrong).toEqual([]);
    expect(cells).toBeGreaterThan(50);
  });

  it('the same in any query parameter, on every route', async () => {
    const wrong: string[] = [];
    for (const route of server.app.routeList) {
      for (const value of hostile) {
        for (const name of ['project_id', 'limit', 'since', 'status', 'anything']) {
          const r = await send(base, route.method, `${fill(route.url, 'matrix')}?${name}=${value}`);
          if (r.status !== 400)
            wrong.push(
              `${route.method} ${route.url}?${name}=${value}: ${r.status} ${r.text.slice(0, 120)}`,
            );
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('out-of-range numbers in query parameters are 4xx on every route', async () => {
    const wrong: string[] = [];
    for (const route of server.app.routeList) {
      for (const q of [
        'limit=1e19',
        'offset=1e19',
        'hours=1e308',
        'limit=-1',
        'offset=0x10',
        'limit=99999999999999999999',
      ]) {
        const r = await send(base, route.method, `${fill(route.url, 'matrix')}?${q}`);
        if (r.status >= 500)
          wrong.push(`${route.method} ${route.url}?${q}: ${r.status} ${r.text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the cases from the issue', async () => {
    const project = await send(base, 'GET', '/api/projects/%00');
    expect(project.status).toBe(400);
    expect(project.json).toEqual({
      detail: 'path parameter project_id contains a control character',
    });

    const audit = await send(base, 'GET', '/api/audit/logs?offset=1e19');
    expect(audit.status).toBe(422);
    expect(audit.json.detail[0].loc).toEqual(['query', 'offset']);

    const key = await call(base, 'POST', '/api/auth/api-keys', {
      key: ADMIN,
      body: { name: 'forever', expires_in_days: 1e308 },
    });
    expect(key.status).toBe(422);
    expect(key.json.detail[0].loc).toEqual(['body', 'expires_in_days']);
    const farAway = await call(base, 'POST', '/api/auth/api-keys', {
      key: ADMIN,
      body: { name: 'far', expires_at: '+275760-09-13T00:00:00.000Z' },
    });
    expect(farAway.status).toBe(422);
    // A sensible expiry still works, as a number or as the CLI's string.
    expect(
      (
        await call(base, 'POST', '/api/auth/api-keys', {
          key: ADMIN,
          body: { name: 'year', expires_in_days: 365 },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call(base, 'POST', '/api/auth/api-keys', {
          key: ADMIN,
          body: { name: 'month', expires_in_days: '30' },
        })
      ).status,
    ).toBe(201);
  });

  it('NUL inside JSON bodies of the REST routes is 4xx too', async () => {
    const bodies: [string, string, unknown][] = [
      ['POST', '/api/projects', { id: 'nul\u0000project', name: 'x' }],
      ['POST', '/api/projects', { id: 'ok-project', name: 'bad\u0000name' }],
      ['PUT', '/api/agents/metadata/planner?project_id=default', { description: 'a\u0000b' }],
      ['POST', '/api/users/invite', { email: 'a\u0000@example.com', role: 'viewer' }],
      ['POST', '/api/auth/api-keys', { name: 'k\u0000' }],
      ['POST', '/api/security/scan', { server_name: 'a\u0000b' }],
    ];
    for (const [method, path, body] of bodies) {
      const r = await call(base, method, path, { key: ADMIN, body });
      expect(r.status, `${method} ${path} ${r.text}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${method} ${path} ${r.text}`).toBeLessThan(500);
    }
  });

  it('ordinary parameters still work: tabs and line breaks in a GraphQL GET query, non-ASCII names', async () => {
    const gql = await send(
      base,
      'GET',
      `/graphql?query=${encodeURIComponent('{\n\tprojects { id }\n}')}`,
    );
    expect(gql.status).toBe(200);
    expect(
      (
        await send(
          base,
          'GET',
          `/api/servers/metadata/${encodeURIComponent('größe-😀')}?project_id=default`,
        )
      ).status,
    ).toBe(404);
    expect((await send(base, 'GET', '/api/audit/logs?offset=5&limit=10')).status).toBe(200);
  });
});
