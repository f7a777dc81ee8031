import { describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { toSessionTreeJson } from '../../src/model/session.ts';
import type { Span } from '../../src/model/span.ts';
import { SessionsService } from '../../src/sessions/sessions-service.ts';
import { insertSpans } from '../../src/store/spans-repo.ts';
import { backends } from '../helpers/backends.ts';
import { project, useRepoStore } from '../helpers/repo-store.ts';
import { awkwardSpanFields, span } from '../helpers/spans.ts';

/**
 * The session tree's REST bytes (SessionsService.treeJson, written from the rows as read) are
 * JSON.stringify of the tree the service builds (tree(), toSessionTreeJson), on the shapes a tree
 * can take: a span id stored twice, a span its own parent, a cycle, an empty parent id, and text
 * that JSON escapes or that is not ASCII, short and long.
 */
const t = (ms: number) => new Date(Date.UTC(2026, 0, 2, 10) + ms);

function treeSpans(p: string, session: string): Span[] {
  const s = (ms: number, over: Partial<Span>) => span(p, t(ms), { sessionId: session, ...over });
  return [
    s(0, { spanId: 'root', spanType: 'agent', startedAtMicros: 5, endedAtMicros: 999 }),
    s(1, { spanId: 'dup', parentSpanId: 'root', toolName: 'first of two' }),
    s(2, { spanId: 'child-of-dup', parentSpanId: 'dup', latencyMs: 0.1 }),
    s(3, { spanId: 'dup', parentSpanId: 'root', toolName: 'second of two', costUsd: 1e-7 }),
    s(4, { spanId: 'self', parentSpanId: 'self', costUsd: 1e21, inputTokens: 2_000_000_000 }),
    s(5, { spanId: 'cycle-a', parentSpanId: 'cycle-b' }),
    s(6, { spanId: 'cycle-b', parentSpanId: 'cycle-a' }),
    s(7, { spanId: 'empty-parent', parentSpanId: '' }),
    s(8, { ...awkwardSpanFields(), parentSpanId: 'root', replayOf: 'root' }),
    s(9, { spanId: 'late-child', parentSpanId: 'text', startedAtMicros: 1, endedAtMicros: 10 }),
  ];
}

describe.each(backends)('session tree bytes on $name', ({ name, available }) => {
  describe.runIf(available)('', () => {
    const db = useRepoStore(name);

    it('writes JSON.stringify of the tree, byte for byte', async () => {
      const p = project();
      await insertSpans(db(), treeSpans(p, 'tree-bytes'));
      // A session keyed by its trace id (no session id on its spans).
      await insertSpans(db(), [
        span(p, t(20), { spanId: 'x', traceId: 'by-trace' }),
        span(p, t(21), { spanId: 'y', traceId: 'by-trace', parentSpanId: 'x' }),
      ]);
      const svc = new SessionsService(db());
      for (const [id, projectId] of [
        ['tree-bytes', p],
        ['tree-bytes', undefined],
        ['by-trace', p],
      ] as const) {
        const want = JSON.stringify(toSessionTreeJson(await svc.tree(LOCAL_ADMIN, id, projectId)));
        const got = await svc.treeJson(LOCAL_ADMIN, id, projectId);
        expect(got.toString('utf8')).toBe(want);
        expect(got.equals(Buffer.from(want, 'utf8'))).toBe(true);
      }
    });

    it('without a project, reads the most recent session of that id and its own spans', async () => {
      // Unique ids: the store is shared, and an id asked without a project is looked up everywhere.
      const id = `twice-${project()}`;
      const [older, newer] = [project('older'), project('newer')];
      await insertSpans(db(), [
        span(older, t(0), { spanId: 'o1', sessionId: id }),
        span(older, t(1), { spanId: 'o2', sessionId: id, parentSpanId: 'o1' }),
      ]);
      await insertSpans(db(), [span(newer, t(60_000), { spanId: 'n1', sessionId: id })]);
      const svc = new SessionsService(db());
      const tree = await svc.tree(LOCAL_ADMIN, id);
      expect(tree.session.projectId).toBe(newer);
      expect(tree.spans.map((n) => [n.span.projectId, n.span.spanId])).toEqual([[newer, 'n1']]);
      const got = await svc.treeJson(LOCAL_ADMIN, id);
      expect(got.toString('utf8')).toBe(JSON.stringify(toSessionTreeJson(tree)));
      // Asked in the older project, that one's.
      const old = await svc.treeJson(LOCAL_ADMIN, id, older);
      expect(JSON.parse(old.toString('utf8')).spans[0].span_id).toBe('o1');
    });

    it('without a project, reads the row and the spans of the same session when two tie on their last call', async () => {
      // The row and the spans are read at once, each finding the most recent session of the id:
      // ties go to the lower project id in both reads.
      const id = `tie-${project()}`;
      const [a, b] = [project('a-tie'), project('b-tie')];
      await insertSpans(db(), [
        span(b, t(0), { spanId: 'b1', sessionId: id }),
        span(a, t(0), { spanId: 'a1', sessionId: id }),
      ]);
      const svc = new SessionsService(db());
      for (let i = 0; i < 3; i++) {
        const got = JSON.parse((await svc.treeJson(LOCAL_ADMIN, id)).toString('utf8'));
        expect(got.session.project_id).toBe(a);
        expect(got.spans.map((n: { span_id: string }) => n.span_id)).toEqual(['a1']);
      }
    });

    it('answers not found as tree() does', async () => {
      const svc = new SessionsService(db());
      await expect(svc.treeJson(LOCAL_ADMIN, 'no-such-session', project())).rejects.toThrow(
        /no session/,
      );
    });
  });
});
