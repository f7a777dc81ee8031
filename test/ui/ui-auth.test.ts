import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GOOD_PASSWORD,
  auditLogs,
  bootstrapKey,
  call,
  configFile,
  createKey,
  expectStatus,
  type Reply,
} from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const UI = { 'x-requested-with': 'spyglass-ui' };
const VIEWER_Q = '{ viewer { role projectId via authDisabled user { email } } }';

/** Dashboard sign-in (docs/ui.md#auth): sessions in GraphQL, the cookie, CSRF rules, logout, audit. */
describe('dashboard sign-in', () => {
  let server: TestServer;
  let base: string;
  let host: string;
  const boot = bootstrapKey();
  const email = 'ui.viewer@example.com';

  const gql = (query: string, variables: object = {}, headers: Record<string, string> = {}) =>
    call(base, 'POST', '/graphql', { body: { query, variables }, headers: { ...UI, ...headers } });
  const cookieOf = (r: Reply) =>
    /spyglass_session=([^;]*)/.exec(r.headers.get('set-cookie') ?? '')?.[1];

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_API_KEYS: boot });
    base = server.httpUrl;
    host = new URL(base).host;
    const invite = expectStatus(
      await call(base, 'POST', '/api/users/invite', { key: boot, body: { email, role: 'viewer' } }),
      201,
      'invite',
    );
    expectStatus(
      await call(base, 'POST', '/api/users/accept-invite', {
        body: { token: invite.json.invite_token, password: GOOD_PASSWORD },
      }),
      200,
      'accept',
    );
  });
  afterAll(async () => server?.dispose());

  it('before sign-in the dashboard may ask who it is and sign in, nothing else', async () => {
    expect((await gql(VIEWER_Q)).json).toEqual({ data: { viewer: null } });
    const other = await gql('{ projects { id } }');
    expect(other.status).toBe(401);
    expect(other.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // Without the dashboard's header a request without a key is refused before GraphQL, as before.
    expect((await call(base, 'POST', '/graphql', { body: { query: VIEWER_Q } })).status).toBe(401);
  });

  it('a user signs in: an httpOnly SameSite=Strict cookie whose session has the user role', async () => {
    const bad = await gql(
      'mutation { login(email: "ui.viewer@example.com", password: "wrong password!") { role } }',
    );
    expect(bad.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(bad.headers.get('set-cookie')).toBeNull();

    const r = await gql(
      'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { role via } }',
      {
        e: email,
        p: GOOD_PASSWORD,
      },
    );
    expect(r.json.data.login).toEqual({ role: 'viewer', via: 'user' });
    const setCookie = r.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Max-Age=\d+/);
    expect(setCookie).not.toMatch(/Secure/); // plain http on loopback
    const token = cookieOf(r)!;
    const cookie = `spyglass_session=${token}`;

    const me = await gql(VIEWER_Q, {}, { cookie });
    expect(me.json.data.viewer).toEqual({
      role: 'viewer',
      projectId: null,
      via: 'user',
      authDisabled: false,
      user: { email },
    });
    expect((await gql('{ projects { id } }', {}, { cookie })).json.data.projects).toBeDefined();
    // A viewer's session cannot do what a viewer's key cannot.
    const write = await gql('mutation { createProject(name: "nope") { id } }', {}, { cookie });
    expect(write.json.errors[0].extensions.status).toBe(403);

    // Cross-site or simple requests do not get to use the cookie.
    const crossSite = await gql(VIEWER_Q, {}, { cookie, origin: 'http://evil.example' });
    expect(crossSite.status).toBe(403);
    const otherLoopbackPort = await gql(VIEWER_Q, {}, { cookie, origin: 'http://localhost:1' });
    expect(otherLoopbackPort.status).toBe(403);
    const sameSiteOtherOrigin = await gql(VIEWER_Q, {}, { cookie, 'sec-fetch-site': 'same-site' });
    expect(sameSiteOtherOrigin.status).toBe(403);
    const simple = await call(base, 'POST', '/graphql', {
      body: JSON.stringify({ query: VIEWER_Q }),
      headers: { cookie, 'content-type': 'text/plain' },
    });
    expect(simple.status).toBe(403);
    const sameOrigin = await gql(
      VIEWER_Q,
      {},
      { cookie, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
    );
    expect(sameOrigin.json.data.viewer.role).toBe('viewer');

    // Logout ends the session on the server.
    const out = await gql('mutation { logout }', {}, { cookie });
    expect(out.json.data.logout).toBe(true);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await gql(VIEWER_Q, {}, { cookie })).status).toBe(401);

    const audit = await auditLogs(base, boot, '?limit=50');
    const actions = audit.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['ui.login', 'ui.logout']));
  });

  it('an API key signs in with its role and project scope, over HTTP and the WebSocket', async () => {
    const admin = await createKey(base, boot, { role: 'admin' });
    const r = await gql(
      'mutation($k: String!) { loginWithApiKey(key: $k) { role via projectId } }',
      { k: admin.key },
    );
    expect(r.json.data.loginWithApiKey).toEqual({ role: 'admin', via: 'key', projectId: null });
    const cookie = `spyglass_session=${cookieOf(r)}`;
    expect((await gql(VIEWER_Q, {}, { cookie })).json.data.viewer.role).toBe('admin');

    // graphql-ws with the cookie from this origin is accepted; from another origin it is not.
    const open = (origin: string) =>
      new Promise<number | 'ack'>((resolve) => {
        const ws = new WebSocket(`ws://${host}/graphql`, 'graphql-transport-ws', {
          headers: { cookie, origin },
        });
        ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
        ws.on('message', (m) => {
          if (JSON.parse(String(m)).type === 'connection_ack') {
            resolve('ack');
            ws.close();
          }
        });
        ws.on('close', (code) => resolve(code));
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', () => undefined);
      });
    expect(await open(`http://${host}`)).toBe('ack');
    expect(await open('http://localhost:1')).toBe(4403);

    // Revoking the key ends its sessions.
    expectStatus(
      await call(base, 'DELETE', `/api/auth/api-keys/${admin.id}`, { key: boot }),
      200,
      'revoke',
    );
    await expect
      .poll(async () => (await gql(VIEWER_Q, {}, { cookie })).status, { timeout: 20_000 })
      .toBe(401);
  });

  it('a wrong key does not sign in', async () => {
    const r = await gql('mutation { loginWithApiKey(key: "sg_nope") { role } }');
    expect(r.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(r.headers.get('set-cookie')).toBeNull();
  });
});

describe('dashboard sign-in limits and local mode', () => {
  it('sign-ins share the limit of /api/users/verify', async () => {
    const config = configFile('rate_limits:\n  verify: 2\n');
    const server = await startTestServer({
      SPYGLASS_API_KEYS: bootstrapKey(),
      SPYGLASS_CONFIG: config.path,
    });
    try {
      const statuses: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await call(server.httpUrl, 'POST', '/graphql', {
          body: {
            query:
              'mutation { login(email: "x@example.com", password: "whatever password") { role } }',
          },
          headers: UI,
        });
        statuses.push(r.json.errors[0].extensions.code);
      }
      expect(statuses).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'RATE_LIMITED']);
    } finally {
      await server.dispose();
      config.remove();
    }
  });

  it('without keys on loopback the dashboard is a local admin straight away', async () => {
    const server = await startTestServer();
    try {
      const r = await call(server.httpUrl, 'POST', '/graphql', {
        body: { query: VIEWER_Q },
        headers: UI,
      });
      expect(r.json.data.viewer).toEqual({
        role: 'admin',
        projectId: null,
        via: 'local',
        authDisabled: true,
        user: null,
      });
    } finally {
      await server.dispose();
    }
  });
});
