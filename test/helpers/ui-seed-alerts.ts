import { vi } from 'vitest';
import { call, expectStatus } from './auth.ts';
import { nativeSpan } from './spans.ts';
import { seedSpans } from './ui.ts';

/**
 * Alerts for the alerts page's browser test, raised through the real system: a failing span makes
 * ingest fire `agent_failure` for its session, and a guard tag (`budget_exceeded`) fires its own
 * alert as well (docs/alert-producers.md).
 */
export async function failSession(
  base: string,
  key: string,
  sessionId: string,
  tag: 'tool_failure' | 'budget_exceeded' = 'tool_failure',
): Promise<void> {
  await seedSpans(
    base,
    [
      nativeSpan({
        session_id: sessionId,
        trace_id: `trace-${sessionId}`,
        status: 'error',
        error: 'boom',
        output_result: null,
        health_tag: tag,
      }),
    ],
    key,
  );
}

export interface InboxAlert {
  id: string;
  type: string;
  severity: string;
  status: string;
  session_id: string | null;
  snoozed_until: string | null;
}

/** GET /api/alerts/inbox?status=all: every alert of the default project, newest first. */
export async function inbox(base: string, key: string): Promise<InboxAlert[]> {
  const r = expectStatus(
    await call(base, 'GET', '/api/alerts/inbox?status=all&limit=200', { key }),
    200,
    'inbox',
  );
  return r.json as InboxAlert[];
}

/** Waits until ingest has fired `n` alerts. */
export async function waitForAlerts(base: string, key: string, n: number): Promise<InboxAlert[]> {
  return vi.waitFor(
    async () => {
      const all = await inbox(base, key);
      if (all.length !== n) throw new Error(`${all.length} of ${n} alerts fired`);
      return all;
    },
    { timeout: 15_000, interval: 100 },
  );
}

/** POST /graphql with an API key: the JSON answer. */
export async function gql(
  base: string,
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<any> {
  const r = await call(base, 'POST', '/graphql', { key, body: { query, variables } });
  return r.json;
}

/**
 * Fires alerts (a new failing session each round, `<prefix>-<n>`) until `seen()` says the page
 * showed one: the page's subscription starts after its first render, so an alert fired at once
 * could come before it listens. Returns the sessions fired.
 */
export async function fireUntilSeen(
  base: string,
  key: string,
  prefix: string,
  seen: () => Promise<boolean>,
): Promise<string[]> {
  const fired: string[] = [];
  await vi.waitFor(
    async () => {
      if (await seen()) return;
      const session = `${prefix}-${fired.length + 1}`;
      fired.push(session);
      await failSession(base, key, session);
      throw new Error('not shown yet');
    },
    { timeout: 20_000, interval: 500 },
  );
  return fired;
}
