import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import type { Span } from '../../src/model/span.ts';
import { buildLineage } from '../../src/sessions/lineage.ts';
import { compareCodePoints, LineageCache } from '../../src/store/lineage-cache.ts';
import { sumLineage, type LineageRow } from '../../src/store/lineage-repo.ts';
import { retireSpans } from '../../src/traces/retention.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { span } from '../helpers/spans.ts';

const H = 3_600_000;

/**
 * The lineage cache (src/store/lineage-cache.ts) on a real PGlite app: every answer it gives equals
 * sumLineage's SQL sum of the same moment, after ingest through the writer into the window's last
 * hour and into a closed hour it keeps, after a project's deletion and after retention, read for
 * every project and per project. Latencies are whole milliseconds, so every sum is exact whatever
 * the order of its additions.
 */
describe('lineage cache on PGlite', () => {
  let app: InProcessApp;
  let cache: LineageCache;
  // The window: the 24 hours up to `until`, whose hour is the window's last (the open one).
  const until = new Date();
  const since = new Date(until.getTime() - 24 * H);
  const lastHour = Math.floor(until.getTime() / H) * H;
  /** An instant in the last hour, at or before `until`. */
  const inLastHour = (i: number) =>
    new Date(lastHour + Math.floor((until.getTime() - lastHour) / (i + 2)));
  const P1 = 'lc-one';
  const P2 = 'lc-two';
  const db = () => app.services.store.db;

  const spansAt = (projectId: string, at: Date, n: number, over: Partial<Span> = {}) =>
    Array.from({ length: n }, (_, i) =>
      span(projectId, new Date(at.getTime() + i), { latencyMs: 7 + (i % 5), ...over }),
    );

  /** Both forms equal the SQL sum now: the rows, and the graph the service builds from them. */
  async function expectSame(projectId: string | null, from = since, to = until) {
    const sql = await sumLineage(db(), projectId, from, to);
    expect(await cache.sum(projectId, from, to)).toEqual(sql);
    expect(
      await app.services.sessions.lineage(LOCAL_ADMIN, { projectId, since: from, until: to }),
    ).toEqual(buildLineage(sql));
    return sql;
  }

  beforeAll(async () => {
    app = await startInProcessApp({ SPYGLASS_RATE_LIMITS: 'off' });
    cache = app.services.lineage as LineageCache;
    for (const id of [P1, P2]) await app.services.projects.create(LOCAL_ADMIN, { id, name: id });
    const batch: Span[] = [];
    for (let h = 30; h >= 1; h--) {
      const at = new Date(lastHour - h * H + 60_000);
      batch.push(...spansAt(P1, at, 3, { agentName: 'planner', serverName: 'github' }));
      batch.push(...spansAt(P2, at, 2, { agentName: 'planner', serverName: 'github' }));
      batch.push(
        ...spansAt(P2, at, 1, { agentName: 'coder', serverName: 'search', status: 'error' }),
      );
      if (h % 3 === 0)
        batch.push(
          ...spansAt(P1, at, 1, { spanType: 'handoff', agentName: 'planner', toolName: '→ coder' }),
          ...spansAt(P1, at, 1, { spanType: 'agent', agentName: 'coder', serverName: 'coder' }),
        );
    }
    batch.push(...spansAt(P1, inLastHour(0), 2, { agentName: 'planner', serverName: 'github' }));
    await app.services.ingest(batch);
  });
  afterAll(async () => app?.close());

  it('is on for PGlite, and keeps the closed part of a read', async () => {
    expect(cache).toBeInstanceOf(LineageCache);
    const rows = await expectSame(null);
    expect(rows.length).toBeGreaterThan(2);
    await expectSame(P1);
    await expectSame(P2);
    expect(cache.size).toBe(3);
    // Read again from what it keeps.
    await expectSame(null);
    await expectSame(P1);
    expect(cache.size).toBe(3);
  });

  it('adds spans of the last hour at once, and keeps its sums', async () => {
    const before = await cache.sum(P2, since, until);
    await app.services.ingest([
      ...spansAt(P2, inLastHour(1), 4, { agentName: 'planner', serverName: 'github' }),
      ...spansAt(P1, inLastHour(2), 1, { agentName: 'coder', serverName: 'search' }),
    ]);
    expect(cache.size).toBe(3);
    const after = await expectSame(P2);
    expect(after).not.toEqual(before);
    await expectSame(null);
    await expectSame(P1);
    expect(cache.size).toBe(3);
  });

  it('shows a late span for a closed hour it keeps at once (the sums holding that hour go)', async () => {
    const before = await expectSame(null);
    await expectSame(P1);
    const late = new Date(lastHour - 5 * H + 59 * 60_000);
    await app.services.ingest(
      spansAt(P1, late, 2, { agentName: 'planner', serverName: 'github', latencyMs: 1000 }),
    );
    const after = await expectSame(null);
    // The late spans changed the answer: equal to the SQL sum only if the kept sum was dropped.
    expect(after).not.toEqual(before);
    await expectSame(P1);
    await expectSame(P2);
  });

  it('places edges new in the last hour where the database orders them (by code point)', async () => {
    const names = ['Zeta', 'alpha', 'éclair', '\u{1F600}bot', '\uFB00x', 'planner '];
    await app.services.ingest(
      names.flatMap((agentName, i) => [
        ...spansAt(P1, inLastHour(i), 1, { agentName, serverName: 'github' }),
        ...spansAt(P2, inLastHour(i), 1, { agentName, serverName: `s-${agentName}` }),
      ]),
    );
    const rows = await expectSame(null);
    expect(rows.some((r) => r.source === '\u{1F600}bot')).toBe(true);
    await expectSame(P1);
    await expectSame(P2);
    expect(cache.size).toBeGreaterThan(0);
  });

  it('answers a window wholly in the past, with a late span in its last hour and before', async () => {
    const to = new Date(lastHour - 3 * H + 30 * 60_000);
    const from = new Date(to.getTime() - 10 * H);
    await expectSame(null, from, to);
    await expectSame(P2, from, to);
    await app.services.ingest(
      spansAt(P2, new Date(lastHour - 3 * H + 5 * 60_000), 1, { agentName: 'late' }),
    );
    await expectSame(null, from, to);
    await app.services.ingest(
      spansAt(P2, new Date(lastHour - 8 * H + 5 * 60_000), 1, { agentName: 'later' }),
    );
    await expectSame(null, from, to);
    await expectSame(P2, from, to);
  });

  it('drops everything when a project is deleted', async () => {
    await expectSame(null);
    await expectSame(P2);
    expect(cache.size).toBeGreaterThan(0);
    await app.services.projects.delete(LOCAL_ADMIN, P2);
    expect(cache.size).toBe(0);
    expect(await expectSame(P2)).toEqual([]);
    await expectSame(null);
    await expectSame(P1);
  });

  it('drops everything on retention', async () => {
    await expectSame(null);
    await expectSame(P1);
    expect(cache.size).toBeGreaterThan(0);
    const before = await cache.sum(null, since, until);
    await retireSpans(db(), new Date(lastHour - 14 * H), app.services.lineage);
    expect(cache.size).toBe(0);
    const after = await expectSame(null);
    expect(after).not.toEqual(before);
    await expectSame(P1);
  });

  it('keeps no sum read while a write of its hours runs, and none past its edge cap', async () => {
    const c = new LineageCache(db());
    const reading = c.sum(P1, since, until);
    const w = c.writing([{ startedAt: new Date(lastHour - 2 * H) }]);
    expect(await reading).toEqual(await sumLineage(db(), P1, since, until));
    expect(c.size).toBe(0);
    // While the write runs, a read of those hours is not kept either.
    await c.sum(P1, since, until);
    expect(c.size).toBe(0);
    w.done();
    await c.sum(P1, since, until);
    expect(c.size).toBe(1);
    // A write of the last hour only leaves it.
    c.writing([{ startedAt: new Date(lastHour) }]).done();
    expect(c.size).toBe(1);
    const capped = new LineageCache(db(), { maxEdges: 1 });
    expect(await capped.sum(null, since, until)).toEqual(
      await sumLineage(db(), null, since, until),
    );
    expect(capped.size).toBe(0);
  });
});

/**
 * With latencies in fractions of a millisecond the float sums depend on the order of their
 * additions, which sumLineage's statement does not fix either (it adds rows in the order its scans
 * read them: a sequential or bitmap scan gives the table's physical order). The cache adds the
 * last hour after the rest; its latency sums may differ from the statement's in their last bits,
 * never the rows, their order, calls or errors, and the API's averages (to 0.001 ms) only at an
 * exact rounding tie.
 */
describe('lineage cache on PGlite, fractional latencies', () => {
  let app: InProcessApp;
  afterAll(async () => app?.close());

  it('gives the same rows, order, calls and errors, and latency sums equal to float rounding', async () => {
    app = await startInProcessApp({ SPYGLASS_RATE_LIMITS: 'off' });
    await app.services.projects.create(LOCAL_ADMIN, { id: 'lc-frac', name: 'lc-frac' });
    const now = Date.now();
    const lastHour = Math.floor(now / H) * H;
    let k = 0;
    for (let round = 0; round < 3; round++) {
      const batch: Span[] = [];
      for (let h = 30; h >= 0; h--)
        for (const p of ['default', 'lc-frac'])
          for (let i = 0; i < 6; i++) {
            k++;
            batch.push(
              span(p, new Date(lastHour - h * H + ((k * 1000) % 3_000_000)), {
                agentName: `a${i % 3}`,
                serverName: `s${i % 2}`,
                latencyMs: ((k * 7919) % 100_000) / 1000 + 0.1,
              }),
            );
          }
      await app.services.ingest(batch);
    }
    const db = app.services.store.db;
    // The window's last hour at each place of its 4-hour block.
    for (let pos = 0; pos < 4; pos++)
      for (const scope of [null, 'default', 'lc-frac']) {
        const until = new Date(now - pos * H);
        const since = new Date(until.getTime() - 24 * H);
        const want = await sumLineage(db, scope, since, until);
        const cache = new LineageCache(db);
        for (const got of [
          await cache.sum(scope, since, until),
          await cache.sum(scope, since, until),
        ]) {
          expect(got.map(({ latency_sum_ms: _, ...r }) => r)).toEqual(
            want.map(({ latency_sum_ms: _, ...r }) => r),
          );
          got.forEach((r, i) =>
            expect(r.latency_sum_ms).toBeCloseTo((want[i] as LineageRow).latency_sum_ms, 6),
          );
        }
      }
  });
});

describe('compareCodePoints', () => {
  it('orders by code point as the C collation does, not by UTF-16 unit', () => {
    const words = ['b', 'B', '\uFB00', '\u{1F600}', 'a', 'ab', '', 'é'];
    expect([...words].sort(compareCodePoints)).toEqual([
      '',
      'B',
      'a',
      'ab',
      'b',
      'é',
      '\uFB00',
      '\u{1F600}',
    ]);
  });
});
