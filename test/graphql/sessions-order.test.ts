import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** The sessions connection's orderBy (offset-paged), text filter and totalCount (docs/api.md#graphql). */
const ADMIN = `sg_${'c'.repeat(64)}`;
let h: InProcessApp;

const LIST = `query ($orderBy: SessionOrder, $descending: Boolean, $text: String, $after: String) {
  sessions(orderBy: $orderBy, descending: $descending, text: $text, first: 4, after: $after) {
    totalCount
    edges { node { sessionId toolCalls } }
    pageInfo { hasNextPage endCursor }
  }
}`;

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  const now = Date.now();
  // ord_i makes i+1 calls (i = 0..9); "ordXi" is there to show `_` is no wildcard.
  const spans = [...Array.from({ length: 10 }, (_, i) => `ord_${i}`), 'ordX9'].flatMap((id, i) =>
    Array.from({ length: (i % 10) + 1 }, (_, k) =>
      nativeSpan({
        session_id: id,
        trace_id: `t-${id}`,
        started_at: new Date(now - 60_000 + k * 100).toISOString(),
        ended_at: new Date(now - 60_000 + k * 100 + 10).toISOString(),
      }),
    ),
  );
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/traces/spans',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    payload: JSON.stringify(spans),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
});
afterAll(async () => h?.close());

describe('sessions(orderBy, text) and totalCount', () => {
  it('pages through every session in the asked order, without repeats, with the total', async () => {
    const seen: { sessionId: string; toolCalls: number }[] = [];
    let after: string | null = null;
    do {
      const { data, errors } = await h.gql(
        LIST,
        { orderBy: 'calls', descending: false, after },
        ADMIN,
      );
      expect(errors).toBeUndefined();
      expect(data.sessions.totalCount).toBe(11);
      seen.push(...data.sessions.edges.map((e: { node: never }) => e.node));
      after = data.sessions.pageInfo.hasNextPage ? data.sessions.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toHaveLength(11);
    expect(new Set(seen.map((s) => s.sessionId)).size).toBe(11);
    const calls = seen.map((s) => s.toolCalls);
    expect(calls).toEqual([...calls].sort((a, b) => a - b));
  });

  it('matches text case-insensitively, `_` and `%` literally', async () => {
    const total = async (text: string) =>
      (await h.gql(LIST, { text }, ADMIN)).data.sessions.totalCount;
    expect(await total('ORD_')).toBe(10);
    expect(await total('ordx')).toBe(1);
    expect(await total('%')).toBe(0);
  });

  it('refuses a keyset cursor for an ordered list', async () => {
    const first = await h.gql(LIST, {}, ADMIN);
    const keyset = first.data.sessions.pageInfo.endCursor;
    const { errors } = await h.gql(LIST, { orderBy: 'cost', after: keyset }, ADMIN);
    expect(errors?.[0]?.message).toMatch(/invalid/i);
  });
});
