import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Span } from '../../src/model/span.ts';
import { execute } from '../../src/store/db.ts';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { copySpans, encodeSpansCopy } from '../../src/store/span-copy.ts';
import { insertSpans, insertSpansPrepared } from '../../src/store/spans-repo.ts';
import { spanCommit } from '../../src/compose/ingest.ts';
import type { EncodedSpans } from '../../src/ingest/writer.ts';
import { createMigratedPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { hourAgo, project } from '../helpers/repo-store.ts';
import { span } from '../helpers/spans.ts';
import { pooledPgliteStore } from '../helpers/store-pool.ts';

const BACKENDS = [
  {
    name: 'PostgreSQL',
    available: pgAdminUrl !== null,
    open: async () =>
      openStore({ databaseUrl: await createMigratedPgDatabase(), dataDir: '', poolSize: 2 }),
  },
  // Through its thread: `COPY … FROM '/dev/blob'` (pglite-thread.ts copyIn), on stores from the
  // worker's pool (test/helpers/store-pool.ts).
  { name: 'PGlite', available: true, open: () => pooledPgliteStore() },
];

/**
 * The COPY form of the ingest statement (PostgreSQL, and PGlite through its thread): what it
 * stores, spans and rollups, is what the JSON statement stores for the same group, hostile text
 * included; a group holding a span already stored stores nothing and says so, for the caller to
 * use the statement.
 */
for (const backend of BACKENDS)
  describe.runIf(backend.available)(`COPY ingest on ${backend.name}`, () => {
    let viaCopy: Store;
    let viaJson: Store;
    beforeAll(async () => {
      [viaCopy, viaJson] = await Promise.all([backend.open(), backend.open()]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([viaCopy?.close(), viaJson?.close()]);
    });

    const client = () => viaCopy.client;
    const copy = (s: Span[]) => copySpans(client(), s, [encodeSpansCopy(s)], viaCopy.pgliteCopyIn);
    const dump = async (store: Store, p: string) => {
      const q = async (table: string, order: string) =>
        (
          await execute(
            store.db,
            sql.raw(`select * from ${table} where project_id = '${p}' order by ${order}`),
          )
        ).rows.map(({ ingested_at: _, ...r }: Record<string, unknown>) => r);
      return {
        spans: await q('spans', 'span_id'),
        sessions: await q('sessions', 'session_id'),
        tools: await q('session_tools', 'session_id, server_name, tool_name'),
        lineage: await q('lineage_hourly', 'hour, edge_type, source, target'),
        lineageBlocks: await q('lineage_blocks', 'block, edge_type, source, target'),
        hourly: await q(
          'span_hourly',
          'hour, span_type, agent_name, server_name, tool_name, model_id',
        ),
        daily: await q(
          'span_daily',
          'day, span_type, agent_name, server_name, tool_name, model_id',
        ),
      };
    };

    it('stores the same rows and rollups as the JSON statement, escapes and NUL included', async () => {
      const p = project('copy');
      const t0 = hourAgo(3);
      const at = (ms: number) => new Date(t0.getTime() + ms);
      const nasty = 'tab\there\nnew line\r\\N back\\slash \\t literal é 😀 "quoted" \u0000nul';
      const group: Span[] = [
        span(p, at(0), {
          sessionId: 's-1',
          traceId: 't-1',
          startedAtMicros: 123,
          endedAtMicros: 999,
        }),
        span(p, at(5), {
          sessionId: 's-1',
          traceId: 't-1',
          status: 'error',
          error: nasty,
          toolName: 'write\tfile',
          inputArgs: {
            path: nasty,
            'key\twith\\stuff': [1, 2.5, null, true, { deep: 'x\ny' }],
            ['nul\u0000key']: 'v',
          },
          outputResult: nasty,
          llmInput: '\\\\server\\share',
          latencyMs: 0.125,
        }),
        span(p, at(3_600_000), {
          sessionId: 's-2',
          spanType: 'agent',
          agentName: 'planner',
          toolName: 'run',
          modelId: 'gpt-x',
          inputTokens: 2_000_000_000,
          outputTokens: 0,
          costUsd: 1e-9,
          costEstimated: false,
          healthTag: 'loop_detected',
          finishReason: 'stop',
          cacheReadTokens: 7,
        }),
        span(p, at(7_200_000), {
          traceId: 'sessionless',
          spanType: 'handoff',
          toolName: '→ helper',
        }),
        span(p, at(10), { spanType: 'generic', serverName: 'http', toolName: 'GET /x' }),
      ];
      expect(await copy(group)).toBe('all');
      expect(await insertSpans(viaJson.db, group)).toBe('all');
      const [a, b] = [await dump(viaCopy, p), await dump(viaJson, p)];
      expect(a.spans).toHaveLength(5);
      expect(a.sessions.length).toBeGreaterThan(1);
      expect(a).toEqual(b);
    });

    it('folds a second group into the same rollups as the statement does', async () => {
      const p = project('copy2');
      const t0 = hourAgo(1);
      const first = [
        span(p, t0, { sessionId: 's' }),
        span(p, new Date(t0.getTime() + 1), { sessionId: 's', status: 'timeout' }),
      ];
      const second = [
        span(p, new Date(t0.getTime() + 2), {
          sessionId: 's',
          status: 'error',
          healthTag: 'tool_failure',
        }),
      ];
      for (const g of [first, second]) {
        expect(await copy(g)).toBe('all');
        await insertSpans(viaJson.db, g);
      }
      expect(await dump(viaCopy, p)).toEqual(await dump(viaJson, p));
    });

    it('stores nothing of a group with a span already stored, so the statement can take it', async () => {
      const p = project('copy3');
      const old = span(p, hourAgo(1), { sessionId: 's' });
      expect(await copy([old])).toBe('all');
      const fresh = span(p, hourAgo(1), { sessionId: 's' });
      expect(await copy([fresh, old])).toBe('refused');
      const stored = await dump(viaCopy, p);
      expect(stored.spans.map((r) => r.span_id)).toEqual([old.spanId]);
      expect(stored.sessions[0]).toMatchObject({ span_count: 1 });
      // The caller's fallback: the statement stores the new span only and counts it once.
      const kept = await insertSpans(viaCopy.db, [fresh, old]);
      expect(kept).not.toBe('all');
      expect((await dump(viaCopy, p)).sessions[0]).toMatchObject({ span_count: 2 });
    });

    it('takes a span sent twice in one group through the statement, stored once', async () => {
      const p = project('copy4');
      const s = span(p, hourAgo(1), { sessionId: 's' });
      expect(await copy([s, s])).toBe('refused');
      await insertSpans(viaCopy.db, [s, s]);
      expect((await dump(viaCopy, p)).sessions[0]).toMatchObject({ span_count: 1 });
    });

    it('refuses a large group whose conflict shows while rows are still being written, and goes on', async () => {
      const p = project('copy5');
      const t0 = hourAgo(1);
      const old = span(p, t0, { sessionId: 's' });
      expect(await copy([old])).toBe('all');
      const group = [
        old,
        ...Array.from({ length: 5000 }, (_, i) =>
          span(p, new Date(t0.getTime() + i), { sessionId: 's' }),
        ),
      ];
      expect(await copy(group)).toBe('refused');
      // Nothing left half-done on the pool's connections: the next groups are stored.
      for (let i = 0; i < 3; i++) expect(await copy([span(p, t0, { sessionId: 's' })])).toBe('all');
      expect((await dump(viaCopy, p)).spans).toHaveLength(4);
    });

    it('refuses a value PostgreSQL cannot take; the statement then reports it', async () => {
      const p = project('copy6');
      const bad = [span(p, hourAgo(1), { inputTokens: 3_000_000_000 })];
      expect(await copy(bad)).toBe('refused');
      await expect(insertSpans(viaCopy.db, bad)).rejects.toThrow();
      expect(await copy([span(p, hourAgo(1))])).toBe('all');
    });

    it("stores a group whose requests were encoded for the other form as the statement does (the writer's commit)", async () => {
      const commit = spanCommit(viaCopy);
      const p = project('mixed');
      const t0 = hourAgo(2);
      const request = (n: number, session: string) =>
        Array.from({ length: n }, (_, i) =>
          span(p, new Date(t0.getTime() + i), { sessionId: session, traceId: session }),
        );
      // Under 500 spans (250 on PGlite), the statement's form: one request of 150 was encoded for
      // COPY on arrival. 500 or more, COPY's form: one request of 20 was encoded as JSON.
      for (const requests of [
        [request(150, 'a'), request(25, 'b')],
        [
          request(130, 'c'),
          request(130, 'd'),
          request(130, 'e'),
          request(130, 'f'),
          request(20, 'g'),
        ],
      ]) {
        const encoded = requests.map((r) => commit.encode(r));
        expect(new Set(encoded.map((e) => typeof e))).toEqual(new Set(['string', 'object']));
        const group = requests.flat();
        expect(await commit.commit(group, encoded)).toBe('all');
        expect(await insertSpans(viaJson.db, group)).toBe('all');
      }
      const [a, b] = [await dump(viaCopy, p), await dump(viaJson, p)];
      expect(a.spans).toHaveLength(175 + 540);
      expect(a).toEqual(b);
    });

    it("recodes at commit only the requests encoded for the other form than their group's, and the group stores as the statement does", async () => {
      const commit = spanCommit(viaCopy);
      const recode = commit.recode as NonNullable<typeof commit.recode>;
      const p = project('recoded');
      const t0 = hourAgo(3);
      const request = (n: number, session: string) =>
        Array.from({ length: n }, (_, i) =>
          span(p, new Date(t0.getTime() + i), { sessionId: session, traceId: session }),
        );
      // A group of 6 requests of 25 (150 spans: COPY on PostgreSQL, the statement on PGlite), the
      // first two encoded on arrival as if for a small group, the rest as if for a large one.
      const requests = Array.from({ length: 6 }, (_, i) => request(25, `r${i}`));
      const encoded = requests.map((r, i) => commit.encode(r, i < 2 ? 25 : 500));
      expect(new Set(encoded.map((e) => typeof e))).toEqual(new Set(['string', 'object']));
      const group = requests.flat();
      const recoded = requests.map((r, i) => recode(r, encoded[i] as EncodedSpans, group.length));
      expect(new Set(recoded.map((e) => typeof e)).size).toBe(1);
      // Those already in the group's form are kept as they are, not encoded again.
      const form = typeof recoded[0];
      encoded.forEach((e, i) => {
        if (typeof e === form) expect(recoded[i]).toBe(e);
      });
      expect(await commit.commit(group, recoded)).toBe('all');
      expect(await insertSpans(viaJson.db, group)).toBe('all');
      expect(await dump(viaCopy, p)).toEqual(await dump(viaJson, p));
    });

    it('the prepared statement stores what the statement stores and says which spans of a retry were new', async () => {
      const p = project('prepared');
      const t0 = hourAgo(1);
      const group = Array.from({ length: 30 }, (_, i) =>
        span(p, new Date(t0.getTime() + i), {
          sessionId: `s${i % 3}`,
          status: i % 7 ? 'success' : 'error',
        }),
      );
      // Several commits on the pool's connections, so some run the statement already prepared.
      for (const g of [group.slice(0, 10), group.slice(10, 20)]) {
        expect(await insertSpansPrepared(client(), g)).toBe('all');
        expect(await insertSpans(viaJson.db, g)).toBe('all');
      }
      const retry = group.slice(15);
      const kept = await insertSpansPrepared(client(), retry);
      expect(kept).toEqual(await insertSpans(viaJson.db, retry));
      expect(kept).not.toBe('all');
      expect((kept as Set<string>).size).toBe(10);
      expect(await dump(viaCopy, p)).toEqual(await dump(viaJson, p));
    });
  });
