import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { execute, type Db } from '../../src/store/db.ts';
import { deleteHealthBefore } from '../../src/store/health-repo.ts';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { loadScoreInputs } from '../../src/store/scoring-repo.ts';
import { backends, createMigratedPgDatabase } from '../helpers/backends.ts';
import { pooledPgliteStore } from '../helpers/store-pool.ts';

/**
 * The health rollups (drizzle 0007, 0008) against health_results itself: 35 days of checks every
 * 10 minutes go in through the real triggers, and the scorecard's 24-hour and 30-day p99 buckets,
 * read from the hourly and daily rollups, must equal the nearest-rank p99 computed straight from the
 * stored checks, at every hour of a day (so the window's partial first day, the whole days and
 * today all move). Deletes, as retention and hand-made ones do them, leave the rollups equal to a
 * fresh aggregation of what is left, with no empty rows.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Midnight UTC a few days back: the history ends at END, the scorecard clocks are on the day after.
const END = new Date(Math.floor(Date.now() / DAY) * DAY - 3 * DAY);
const KEY = { projectId: 'default', serverName: 'rollup' };

/**
 * Checks every 10 minutes for 35 days before END: 20-30 ms, 1 in 97 down, and a slow day 29-30
 * days before END (900 ms for a third of its checks) whose hours leave the 30-day window one by one
 * as the clock moves, so the 30-day p99 changes during the day.
 */
async function loadHistory(db: Db): Promise<void> {
  await execute(
    db,
    sql`insert into health_results (id, project_id, server_name, status, latency_ms, tools_count, checked_at)
        select 'r' || m, 'default', 'rollup', case when m % 97 = 0 then 'down' else 'up' end,
               case when m % 97 = 0 then null
                    when m * 10 between 30 * 1440 and 31 * 1440 and m % 3 = 0 then 900
                    else 20 + (m * 7919 % 1000) / 100.0 end,
               3, ${END.toISOString()}::timestamptz - make_interval(mins => m * 10)
        from generate_series(1, 35 * 144) as m`,
  );
}

/** Nearest-rank p99 bucket of the checks not down in [from, to), from health_results. */
async function rawP99(db: Db, from: number, to: number): Promise<number | null> {
  const { rows } = await execute<{ b: number | null }>(
    db,
    sql`select min(b) as b from (
          select b, count(*) over (order by b) as cum, count(*) over () as tot
          from (select health_hourly_bucket(status, latency_ms) as b from health_results
                where server_name = 'rollup' and checked_at >= ${new Date(from).toISOString()}::timestamptz
                  and checked_at < ${new Date(to).toISOString()}::timestamptz) c
          where b is not null
        ) w where cum >= ceil(0.99 * tot)`,
  );
  return rows[0]?.b ?? null;
}

/** Rows of a rollup that differ from a fresh aggregation of health_results (both directions). */
async function drift(
  db: Db,
  table: string,
  unit: 'hour' | 'day',
  withBucket: boolean,
): Promise<unknown[]> {
  const at = sql.raw(`date_trunc('${unit}', checked_at at time zone 'UTC') at time zone 'UTC'`);
  const fresh = withBucket
    ? sql`select * from (select project_id, server_name, ${at} as t, health_hourly_bucket(status, latency_ms) as bucket, count(*)::int as n
          from health_results group by 1, 2, 3, 4) g where bucket is not null`
    : sql`select project_id, server_name, ${at} as t, count(*)::int as n, (count(*) filter (where status = 'down'))::int as down
          from health_results group by 1, 2, 3`;
  const stored = withBucket
    ? sql.raw(`select project_id, server_name, ${unit} as t, bucket, checks as n from ${table}`)
    : sql.raw(
        `select project_id, server_name, ${unit} as t, checks as n, down_checks as down from ${table}`,
      );
  const { rows } = await execute(
    db,
    sql`(${fresh} except all ${stored}) union all (${stored} except all ${fresh})`,
  );
  return rows;
}

async function expectRollupsExact(db: Db): Promise<void> {
  expect(await drift(db, 'health_hourly', 'hour', false)).toEqual([]);
  expect(await drift(db, 'health_latency_hourly', 'hour', true)).toEqual([]);
  expect(await drift(db, 'health_latency_daily', 'day', true)).toEqual([]);
}

describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(
    available ? 'health rollups' : `health rollups (skipped: no ${name} in this run)`,
    () => {
      let store: Store;

      beforeAll(async () => {
        store =
          name === 'postgres'
            ? await openStore({
                databaseUrl: await createMigratedPgDatabase(),
                dataDir: '',
                poolSize: 2,
              })
            : await pooledPgliteStore();
        await loadHistory(store.db);
      }, 120_000);

      afterAll(async () => {
        await store?.close();
      });

      it(
        'the 24-hour and 30-day p99 from the rollups equal those of the stored checks at every hour of a day',
        { timeout: 120_000 },
        async () => {
          await expectRollupsExact(store.db);
          const seen = new Set<number | null>();
          for (let h = 0; h < 24; h++) {
            // half past the hour: the windows are the current hour and the 23 / 719 before it
            const now = new Date(END.getTime() - DAY + h * HOUR + HOUR / 2);
            const hourNow = now.getTime() - HOUR / 2;
            const [inputs] = await loadScoreInputs(store.db, [KEY], now);
            const expected = [
              await rawP99(store.db, hourNow - 23 * HOUR, hourNow + HOUR),
              await rawP99(store.db, hourNow - 719 * HOUR, hourNow + HOUR),
            ];
            expect([inputs?.p99Bucket24h, inputs?.p99Bucket30d], now.toISOString()).toEqual(
              expected,
            );
            seen.add(inputs?.p99Bucket30d ?? null);
          }
          // the slow day leaves the window during this day: the comparison covered both outcomes
          expect(seen.size).toBeGreaterThan(1);
        },
      );

      it(
        'retention and other deletes keep every rollup equal to the checks that are left',
        { timeout: 120_000 },
        async () => {
          // mid-hour on a mid-window day: partial hours and days lose some of their checks
          const cutoff = new Date(END.getTime() - 20 * DAY - 17 * 60_000);
          const removed = await deleteHealthBefore(store.db, cutoff);
          expect(removed.results).toBeGreaterThan(0);
          await expectRollupsExact(store.db);
          // the scorecard now sees only what is left
          const now = new Date(END.getTime() + HOUR / 2);
          const [inputs] = await loadScoreInputs(store.db, [KEY], now);
          expect(inputs?.p99Bucket30d).toBe(
            await rawP99(store.db, now.getTime() - HOUR / 2 - 719 * HOUR, now.getTime() + HOUR / 2),
          );
          // a delete of scattered checks (every down one) and one that empties whole days
          await execute(store.db, sql`delete from health_results where status = 'down'`);
          await execute(
            store.db,
            sql`delete from health_results where checked_at >= ${new Date(END.getTime() - 3 * DAY).toISOString()}::timestamptz`,
          );
          await expectRollupsExact(store.db);
          const [after] = await loadScoreInputs(store.db, [KEY], now);
          const { rows: left } = await execute<{ n: number }>(
            store.db,
            sql`select count(*)::int as n from health_results where checked_at >= ${new Date(END.getTime() - 167 * HOUR).toISOString()}::timestamptz`,
          );
          expect(left[0]?.n).toBeGreaterThan(0);
          expect([after?.checks7d, after?.downChecks7d, after?.p99Bucket24h]).toEqual([
            left[0]?.n,
            0,
            null,
          ]);
          await execute(store.db, sql`delete from health_results`);
          await expectRollupsExact(store.db);
          const { rows } = await execute<{ n: number }>(
            store.db,
            sql`select (select count(*) from health_latency_daily)::int + (select count(*) from health_latency_hourly)::int + (select count(*) from health_hourly)::int as n`,
          );
          expect(rows[0]?.n).toBe(0);
        },
      );
    },
  );
});
