import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { execute } from '../../src/store/db.ts';
import { partitionName } from '../../src/store/partitions.ts';
import { sql } from 'drizzle-orm';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { pgDatabaseAt } from '../helpers/migrations.ts';

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;

// The same SQL runs on PGlite at every test server's start (on an empty table); moving rows is
// exercised here on PostgreSQL, where a database at 0016 costs no initdb.
describe.runIf(pgAdminUrl !== null)('migration 0017 on a database with spans', () => {
  it('moves every existing span into its day partition, or the default one outside the window', async () => {
    const url = await createPgDatabase();
    await pgDatabaseAt(url, 16, async (client) => {
      const starts = {
        recent: today - 3 * DAY + 1000,
        old: today - 500 * DAY,
        later: today + 30 * DAY,
      };
      for (const [id, t] of Object.entries(starts)) {
        const iso = new Date(t).toISOString();
        await client`insert into spans (project_id, span_id, span_type, server_name, tool_name, status, started_at, ended_at, latency_ms)
                     values ('default', ${id}, 'tool_call', 'fs', 'read', 'success', ${iso}, ${iso}, 1)`;
      }
    });

    const store = await openStore({ databaseUrl: url, dataDir: 'memory://' });
    try {
      const { rows } = await execute<{ span_id: string; part: string }>(
        store.db,
        sql`select span_id, tableoid::regclass::text as part from spans order by span_id`,
      );
      expect(Object.fromEntries(rows.map((r) => [r.span_id, r.part]))).toEqual({
        recent: partitionName(new Date(today - 3 * DAY)),
        old: 'spans_default',
        later: 'spans_default',
      });
      // Today .. today+7 exist for the spans arriving next.
      const { rows: parts } = await execute<{ n: number }>(
        store.db,
        sql`select count(*)::int as n from pg_class where relname = ${partitionName(new Date(today + 7 * DAY))}`,
      );
      expect(parts[0]?.n).toBe(1);
    } finally {
      await store.close();
    }
  });
});
