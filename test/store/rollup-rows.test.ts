import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSpanJson, type Span } from '../../src/model/span.ts';
import { execute } from '../../src/store/db.ts';
import type { Store } from '../../src/store/open-store.ts';
import { insertWithRollups } from '../../src/store/rollup-sql.ts';
import { encodeSpans, insertSpans } from '../../src/store/spans-repo.ts';
import { pooledPgliteStore } from '../helpers/store-pool.ts';

const T0 = Date.parse('2026-11-20T09:58:00.000Z');
const TYPES = ['tool_call', 'tool_call', 'agent', 'handoff', 'llm_intent', 'generic'] as const;
const STATUSES = ['success', 'success', 'error', 'timeout', 'prevented'] as const;
const TAGS = [null, null, 'tool_failure', 'loop_detected', 'success'] as const;

/** Varied spans: every span type, status and tag, sessions and traces only, two hours, arrows, micros. */
function spans(from: number, n: number): Span[] {
  return Array.from({ length: n }, (_, k): Span => {
    const i = from + k;
    const type = TYPES[i % TYPES.length] as Span['spanType'];
    const start = T0 + ((i * 7919) % 240_000);
    return {
      spanId: `s${i}`,
      traceId: `t${i % 5}`,
      parentSpanId: null,
      sessionId: i % 4 === 0 ? null : `sess-${i % 6}`,
      projectId: i % 9 === 0 ? 'other' : 'default',
      spanType: type,
      serverName: `srv-${i % 3}`,
      toolName:
        type === 'handoff' ? ['→ planner', '-> planner', 'planner'][i % 3]! : `tool-${i % 4}`,
      agentName: i % 7 === 0 ? null : `agent-${i % 2}`,
      status: STATUSES[i % STATUSES.length] as Span['status'],
      error: null,
      startedAt: new Date(start),
      endedAt: new Date(start + (i % 50) * 3.5),
      startedAtMicros: i % 1000,
      endedAtMicros: (i * 3) % 1000,
      latencyMs: (i % 50) * 3.5 + 0.1,
      inputArgs: null,
      outputResult: null,
      llmInput: null,
      llmOutput: null,
      inputTokens: i % 3 === 0 ? null : i * 11,
      outputTokens: i % 5 === 0 ? null : i * 3,
      modelId: i % 2 === 0 ? null : 'gpt-4o',
      healthTag: TAGS[i % TAGS.length] as Span['healthTag'],
      costUsd: i % 3 === 0 ? null : i * 0.0001,
      costEstimated: i % 4 === 1,
    };
  });
}

const ROLLUPS = {
  sessions: 'project_id, session_id',
  session_tools: 'project_id, session_id, server_name, tool_name',
  lineage_hourly: 'project_id, hour, edge_type, source, target',
  lineage_blocks: 'project_id, block, edge_type, source, target',
  span_hourly: 'project_id, hour, span_type, agent_name, server_name, tool_name, model_id',
  span_daily: 'project_id, day, span_type, agent_name, server_name, tool_name, model_id',
};

/**
 * Every rollup row; sums of doubles to 12 significant digits: added in another order (the
 * statement's sort leaves the order of equal keys open) they can differ in the last bit.
 */
async function rollups(store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(ROLLUPS)) {
    const { rows } = await execute<Record<string, unknown>>(
      store.db,
      sql.raw(`select * from ${table} order by ${key}`),
    );
    out[table] = rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [
          k,
          typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v,
        ]),
      ),
    );
  }
  return out;
}

/** The statement aggregating the rows itself (no rows from the caller), as before rollup-rows.ts. */
async function insertAggregatedBySql(store: Store, batch: Span[]): Promise<void> {
  const columns = Object.keys(toSpanJson(batch[0]!))
    .map((c) => `"${c}"`)
    .join(', ');
  await execute(
    store.db,
    insertWithRollups(sql.raw(columns), `[${encodeSpans(batch)}]`, batch.length),
  );
}

describe('rollup rows aggregated by the server', () => {
  let byServer: Store;
  let bySql: Store;
  // Two PGlite stores with the migrated template's contents, from the worker's pool
  // (test/helpers/store-pool.ts), not two in-memory first starts.
  beforeAll(async () => {
    byServer = await pooledPgliteStore();
    bySql = await pooledPgliteStore();
  });
  afterAll(async () => {
    await byServer?.close();
    await bySql?.close();
  });

  it('give the same sessions, tools, lineage and hourly and daily rollups as the statement, group after group', async () => {
    for (const [from, n] of [
      [0, 120],
      [120, 37],
      [157, 200],
    ] as const) {
      expect(await insertSpans(byServer.db, spans(from, n))).toBe('all');
      await insertAggregatedBySql(bySql, spans(from, n));
    }
    const mine = await rollups(byServer);
    expect(mine.sessions!.length).toBeGreaterThan(5);
    expect(mine.lineage_hourly!.length).toBeGreaterThan(5);
    expect(mine).toEqual(await rollups(bySql));
  });

  it('fall back to the statement when a span was already stored, counting only the new ones', async () => {
    // 20 spans already stored and 10 new: the statement folds only the 10.
    await insertSpans(byServer.db, spans(337, 30));
    await insertAggregatedBySql(bySql, spans(357, 10));
    expect(await rollups(byServer)).toEqual(await rollups(bySql));
  });
});
