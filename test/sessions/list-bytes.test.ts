import { describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { toSessionJson } from '../../src/model/session.ts';
import type { Span } from '../../src/model/span.ts';
import { SessionsService, type SessionQuery } from '../../src/sessions/sessions-service.ts';
import { insertSpans } from '../../src/store/spans-repo.ts';
import { backends } from '../helpers/backends.ts';
import { expectPagesAsBytes } from '../helpers/json-pages.ts';
import { project, useRepoStore } from '../helpers/repo-store.ts';
import { span } from '../helpers/spans.ts';

/**
 * The sessions list's REST bytes (SessionsService.listJson) are JSON.stringify of list()'s
 * sessions' toSessionJson, with the same next-page cursor: names that JSON escapes or that are
 * not ASCII, costs and tokens of every size, times with microseconds, a session without an agent,
 * and every page of a list.
 */
const t = (ms: number) => new Date(Date.UTC(2026, 0, 2, 10) + ms);

function sessionSpans(p: string): Span[] {
  const s = (ms: number, over: Partial<Span>) => span(p, t(ms), over);
  return [
    s(0, { sessionId: 'plain', agentName: 'planner', startedAtMicros: 7, costUsd: 0.1 }),
    s(5, { sessionId: 'plain', agentName: 'planner', costUsd: 0.2, serverName: 'search' }),
    s(10, {
      sessionId: 'quoted "é" \\ 😀',
      agentName: 'Zürich — "agent"',
      serverName: 'serveur ✓',
      status: 'error',
      inputTokens: 2_000_000_000,
      outputTokens: 1,
      costUsd: 1e-7,
    }),
    s(20, { sessionId: 'no-agent', agentName: null, spanType: 'llm_intent', costUsd: 12_345.678 }),
    s(30, { sessionId: 'prevented', status: 'prevented', startedAtMicros: 999 }),
    s(40, { sessionId: undefined, traceId: 'by-trace' }),
  ];
}

describe.each(backends)('sessions list bytes on $name', ({ name, available }) => {
  describe.runIf(available)('', () => {
    const db = useRepoStore(name);

    it('writes JSON.stringify of the page, byte for byte, with the same cursor', async () => {
      const p = project();
      await insertSpans(db(), sessionSpans(p));
      const svc = new SessionsService(db());
      const since = t(-1000);
      const queries: SessionQuery[] = [
        { projectId: p, since },
        { projectId: p, since, agentName: 'Zürich — "agent"' },
        { projectId: p, since, healthTag: 'success' },
        { projectId: p, since, orderBy: 'cost' },
        { projectId: p, since: t(1_000_000) },
      ];
      const checked = await expectPagesAsBytes(
        queries,
        (cursor): SessionQuery => ({ projectId: p, since, limit: 2, cursor }),
        async (q) => {
          const page = await svc.list(LOCAL_ADMIN, q);
          return {
            json: JSON.stringify(page.sessions.map(toSessionJson)),
            nextCursor: page.nextCursor,
          };
        },
        (q) => svc.listJson(LOCAL_ADMIN, q),
      );
      expect(checked).toBe(5 + 3);
    });
  });
});
