import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/store/db.ts';
import { sumLineage } from '../../src/store/lineage-repo.ts';
import { openStore } from '../../src/store/open-store.ts';
import { insertSpans } from '../../src/store/spans-repo.ts';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { pgDatabaseAt } from '../helpers/migrations.ts';
import { span } from '../helpers/spans.ts';

const H = 3_600_000;

// The same SQL runs on PGlite at every test server's start (on an empty table); filling the blocks
// from stored hours is exercised here on PostgreSQL, where a database at 0023 costs no initdb.
describe.runIf(pgAdminUrl !== null)('migration 0024 on a database with hourly lineage', () => {
  it('fills lineage_blocks from the stored hours, and ingest then folds into both', async () => {
    const url = await createPgDatabase();
    // 10 hours from a block start two days back, two projects: hour i holds i + 1 calls.
    const B = Math.floor((Date.now() - 2 * 86_400_000) / (4 * H)) * 4 * H;
    await pgDatabaseAt(url, 23, async (client) => {
      for (const p of ['a', 'b'])
        for (let i = 0; i < 10; i++) {
          const hour = new Date(B + i * H).toISOString();
          await client`insert into lineage_hourly (project_id, hour, edge_type, source, target, calls, errors, latency_sum_ms)
                       values (${p}, ${hour}, 'calls', 'planner', 'github', ${i + 1}, ${i % 2}, ${10 * (i + 1)})`;
        }
    });

    const store = await openStore({ databaseUrl: url, dataDir: 'memory://' });
    try {
      const { rows } = await execute<{ block: Date; calls: number; errors: number }>(
        store.db,
        sql`select block, calls, errors from lineage_blocks where project_id = 'a' order by block`,
      );
      expect(rows.map((r) => [new Date(r.block).getTime() - B, r.calls, r.errors])).toEqual([
        [0, 1 + 2 + 3 + 4, 2],
        [4 * H, 5 + 6 + 7 + 8, 2],
        [8 * H, 9 + 10, 1],
      ]);
      // Hours 1-9: hours 1-3 from lineage_hourly, the block of hours 4-7, hours 8-9.
      const window = [new Date(B + H), new Date(B + 9 * H)] as const;
      const sum = ((1 + 9) * 9) / 2 + 9;
      expect(await sumLineage(store.db, 'a', ...window)).toEqual([
        {
          edge_type: 'calls',
          source: 'planner',
          target: 'github',
          calls: sum,
          errors: 5,
          latency_sum_ms: 10 * sum,
        },
      ]);
      expect((await sumLineage(store.db, null, ...window))[0]?.calls).toBe(2 * sum);
      // A span in hour 5 lands in its hour and its block (the keys the upserts name).
      await insertSpans(store.db, [
        span('a', new Date(B + 5 * H + 60_000), { agentName: 'planner', serverName: 'github' }),
      ]);
      expect((await sumLineage(store.db, 'a', ...window))[0]?.calls).toBe(sum + 1);
      expect(
        (await sumLineage(store.db, 'a', new Date(B + 5 * H), new Date(B + 5 * H)))[0]?.calls,
      ).toBe(7);
    } finally {
      await store.close();
    }
  });
});
