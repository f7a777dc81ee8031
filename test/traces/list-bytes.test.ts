import { describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { toSpanJson, type Span } from '../../src/model/span.ts';
import { SpansService, type SpanQuery } from '../../src/traces/spans-service.ts';
import { insertSpans } from '../../src/store/spans-repo.ts';
import { backends } from '../helpers/backends.ts';
import { expectPagesAsBytes } from '../helpers/json-pages.ts';
import { project, useRepoStore } from '../helpers/repo-store.ts';
import { awkwardSpanFields, span } from '../helpers/spans.ts';

/**
 * The spans list's REST bytes (SpansService.queryJson, written from the rows as read) are
 * JSON.stringify of query()'s spans' toSpanJson, with the same next-page cursor: every page of a
 * list, text that JSON escapes or that is not ASCII, short and long, numbers of every kind, and
 * spans started in the same millisecond told apart by their microseconds.
 */
const t = (ms: number) => new Date(Date.UTC(2026, 0, 2, 10) + ms);

function listSpans(p: string): Span[] {
  const s = (ms: number, over: Partial<Span>) => span(p, t(ms), { sessionId: 'list', ...over });
  return [
    s(0, { spanId: 'a', spanType: 'agent', startedAtMicros: 5, endedAtMicros: 999 }),
    s(0, { spanId: 'b', startedAtMicros: 6, costUsd: 1e-7, latencyMs: 0.1 }),
    s(0, { spanId: 'c', costUsd: 1e21, inputTokens: 2_000_000_000, outputTokens: 0 }),
    s(1, { ...awkwardSpanFields(), traceId: 'trace-ü', replayOf: 'a' }),
    s(2, { spanId: 'd', parentSpanId: '', status: 'error', error: '' }),
    s(3, { spanId: 'e', sessionId: undefined, traceId: 'only-trace', inputArgs: {} }),
  ];
}

describe.each(backends)('spans list bytes on $name', ({ name, available }) => {
  describe.runIf(available)('', () => {
    const db = useRepoStore(name);

    it('writes JSON.stringify of the page, byte for byte, with the same cursor', async () => {
      const p = project();
      await insertSpans(db(), listSpans(p));
      const svc = new SpansService(db());
      const queries: SpanQuery[] = [
        { projectId: p },
        { projectId: p, traceId: 'trace-ü' },
        { projectId: p, status: 'error' },
        { projectId: p, limit: 1000 },
      ];
      // And every page of two spans, by the cursor each form gives.
      const checked = await expectPagesAsBytes(
        queries,
        (cursor): SpanQuery => ({ projectId: p, limit: 2, cursor }),
        async (q) => {
          const page = await svc.query(LOCAL_ADMIN, q);
          return { json: JSON.stringify(page.spans.map(toSpanJson)), nextCursor: page.nextCursor };
        },
        (q) => svc.queryJson(LOCAL_ADMIN, q),
      );
      expect(checked).toBe(4 + 3);
    });

    it('answers an empty list and rejects a bad query as query() does', async () => {
      const svc = new SpansService(db());
      const empty = await svc.queryJson(LOCAL_ADMIN, { projectId: project() });
      expect(empty.json.toString('utf8')).toBe('[]');
      expect(empty.nextCursor).toBeNull();
      await expect(svc.queryJson(LOCAL_ADMIN, { status: 'nope' })).rejects.toThrow(/invalid/);
    });
  });
});
