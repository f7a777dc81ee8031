import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, createKey, expectStatus, revokeKey } from '../helpers/auth.ts';
import { openWs } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan, postJson } from '../helpers/spans.ts';
import { SseClient } from '../helpers/sse.ts';

const ADMIN = bootstrapKey();
const SPAN_NEW = 'subscription { spanNew { sessionId } }';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
});
afterAll(async () => server?.dispose());

/** An SSE stream, a GraphQL-over-SSE subscription and a WebSocket subscription, all with `key`, each shown to be live. */
async function openStreams(key: string, tag: string) {
  const sse = await SseClient.open(`${server.httpUrl}/api/live/events`, { 'x-api-key': key });
  const gqlSse = await SseClient.open(
    `${server.httpUrl}/graphql?query=${encodeURIComponent(SPAN_NEW)}`,
    { 'x-api-key': key },
  );
  const ws = await openWs(server.httpUrl, { apiKey: key });
  const sub = ws.subscribe(SPAN_NEW);
  const seen = () =>
    sse.events.some((e) => e.data.includes(tag)) &&
    gqlSse.events.some((e) => e.data.includes(tag)) &&
    sub.received.length > 0;
  const deadline = Date.now() + 10_000;
  while (!seen()) {
    if (Date.now() > deadline) throw new Error('streams did not start');
    await postJson(`${server.httpUrl}/api/traces/spans`, [nativeSpan({ session_id: tag })], {
      'x-api-key': ADMIN,
    });
    await Promise.race([sse.waitFor(seen, 200).catch(() => undefined), sub.count(1)]);
  }
  return { sse, gqlSse, ws, sub };
}

/** Revoking ends all three within a second, each with a reason, and nothing more arrives. */
async function expectEnded(
  streams: Awaited<ReturnType<typeof openStreams>>,
  after: string,
): Promise<void> {
  const { sse, gqlSse, ws, sub } = streams;
  await sse.waitFor(() => sse.ended, 1000);
  expect(sse.events.at(-1)).toEqual({
    event: 'error',
    data: JSON.stringify({ detail: 'API key revoked' }),
  });
  await gqlSse.waitFor(() => gqlSse.ended, 1000);
  expect(gqlSse.events.some((e) => e.data.includes('API key revoked'))).toBe(true);
  const closed = await Promise.race([
    ws.closed,
    new Promise((r) => setTimeout(() => r('still open'), 1000)),
  ]);
  expect(closed).toEqual({ code: 4403, reason: 'Forbidden: API key revoked' });
  await sub.ended;
  const before = sub.received.length;
  await postJson(`${server.httpUrl}/api/traces/spans`, [nativeSpan({ session_id: after })], {
    'x-api-key': ADMIN,
  });
  expect(sse.events.some((e) => e.data.includes(after))).toBe(false);
  expect(gqlSse.events.some((e) => e.data.includes(after))).toBe(false);
  expect(sub.received.length).toBe(before);
  expect(server.services.liveClients.count).toBe(0);
}

describe('open live streams', () => {
  it('end when their key is revoked', async () => {
    const viewer = await createKey(server.httpUrl, ADMIN, { name: 'watcher', role: 'viewer' });
    const streams = await openStreams(viewer.key, 'before-revoke');
    await revokeKey(server.httpUrl, ADMIN, viewer.id);
    await expectEnded(streams, 'after-revoke');
  });

  it('end when the user who owns the key is deactivated', async () => {
    const invite = expectStatus(
      await call(server.httpUrl, 'POST', '/api/users/invite', {
        key: ADMIN,
        body: { email: 'leaver@example.com', role: 'viewer' },
      }),
      201,
      'invite',
    ).json;
    const { key } = await server.services.keys.create({
      name: 'leaver',
      role: 'viewer',
      projectId: null,
      expiresAt: null,
      userId: invite.user.id,
      createdBy: 'test',
    });
    const streams = await openStreams(key, 'before-deactivate');
    expectStatus(
      await call(server.httpUrl, 'DELETE', `/api/users/${invite.user.id}`, { key: ADMIN }),
      200,
      'deactivate',
    );
    await expectEnded(streams, 'after-deactivate');
  });
});
