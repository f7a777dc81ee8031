import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printSortedSchema } from '../../src/graphql/schema.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan, postJson } from '../helpers/spans.ts';

const ADMIN = `sg_${'a'.repeat(64)}`;
let server: InProcessApp;
let viewerKey: string;

const gql = async (query: string, variables: Record<string, unknown> = {}, key = ADMIN) =>
  (await postJson(`${server.httpUrl}/graphql`, { query, variables }, { 'x-api-key': key })).json;

beforeAll(async () => {
  server = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  viewerKey = (
    await postJson(
      `${server.httpUrl}/api/auth/api-keys`,
      { name: 'viewer', role: 'viewer' },
      { 'x-api-key': ADMIN },
    )
  ).json.key;
});
afterAll(async () => server?.close());

describe('GraphQL', () => {
  it('committed schema.graphql matches the code-first schema', () => {
    expect(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8')).toBe(
      printSortedSchema(),
    );
  });

  it('pages spans as a Relay connection, the same data as REST', async () => {
    const spans = Array.from({ length: 3 }, (_, i) =>
      nativeSpan({
        session_id: 'gql-s',
        tool_name: `t${i}`,
        started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        ended_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i, 500)).toISOString(),
      }),
    );
    expect(
      (await postJson(`${server.httpUrl}/api/traces/spans`, spans, { 'x-api-key': ADMIN })).status,
    ).toBe(202);
    const q = `query($after: String) { spans(first: 2, after: $after, filter: {sessionId: "gql-s"}) { edges { node { toolName latencyMs inputArgs startedAt } } pageInfo { hasNextPage endCursor } } }`;
    const first = await gql(q);
    expect(first.data.spans.edges.map((e: any) => e.node.toolName)).toEqual(['t2', 't1']);
    expect(first.data.spans.edges[0].node).toMatchObject({
      latencyMs: 42.5,
      inputArgs: { path: '/tmp/a.txt' },
      startedAt: '2026-01-01T00:00:02.000Z',
    });
    expect(first.data.spans.pageInfo.hasNextPage).toBe(true);
    const second = await gql(q, { after: first.data.spans.pageInfo.endCursor });
    expect(second.data.spans.edges.map((e: any) => e.node.toolName)).toEqual(['t0']);
    expect(second.data.spans.pageInfo.hasNextPage).toBe(false);
  });

  it('lets a viewer query but not mutate', async () => {
    expect((await gql('{ settings { redactPayloads } }', {}, viewerKey)).data).toEqual({
      settings: { redactPayloads: false },
    });
    const res = await gql(
      'mutation { updateSettings(redactPayloads: true) { redactPayloads } }',
      {},
      viewerKey,
    );
    expect(res.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect((await gql('{ settings { redactPayloads } }')).data.settings.redactPayloads).toBe(false);
  });

  it('refuses callers without a key', async () => {
    const res = await postJson(`${server.httpUrl}/graphql`, { query: '{ projects { id } }' });
    expect(res.status).toBe(401);
  });

  it('rejects over-deep and alias-heavy queries without running them', async () => {
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: projects { id }`).join(' ');
    const res = await gql(`{ ${aliases} }`);
    expect(res.errors[0].message).toMatch(/alias/i);
  });
});
