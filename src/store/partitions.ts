import { sql } from 'drizzle-orm';
import { execute, timestamptz, type Db } from './db.ts';

/**
 * Day partitions of spans (migration 0017): `spans_pYYYYMMDD` holds [day 00:00 UTC, next day),
 * `spans_default` every time outside them. The name carries the range, so the job below never
 * parses partition bounds.
 */
const DAY_MS = 86_400_000;
const NAME = /^spans_p(\d{4})(\d{2})(\d{2})$/;
/** Serialises partition DDL between instances: one holder at a time. */
const LOCK_KEY = sql`hashtext('spyglass:span-partitions')`;

/**
 * Adding or dropping a partition locks the parent exclusively, and the lock request queues every
 * later insert behind it: behind a long read, give up after a few seconds (the job runs again in
 * an hour, and partitions are made days ahead) rather than stall ingest.
 */
async function ddlTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local lock_timeout = '5s'`);
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_KEY})`);
    return fn(tx as unknown as Db);
  });
}

/**
 * Storage settings of every partition of spans: autovacuum never analyzes one. The statistics
 * keeper (stats-keeper.ts) owns spans' statistics: it analyzes the table and its partitions on the
 * same 50 rows + 10 % rule, sooner on growth, and only the columns reads plan by. Autovacuum's
 * analyze of a partition did the same again with every column (the LLM payload text included), a
 * 30,000-row sample that cost 1.4× the keeper's of the same partition: in the otel-real row's
 * first cell, the run that landed in it cost PostgreSQL 220-570 ms (docs/benchmarks.md, target 1's
 * first cell). Its vacuums (insert-triggered ones included: they set the visibility map and freeze
 * a partition's rows) are untouched.
 */
export const PARTITION_STORAGE = 'autovacuum_analyze_threshold = 2147483647';
const STORAGE_OPTION = PARTITION_STORAGE.replaceAll(' ', '');

export const partitionName = (day: Date): string =>
  `spans_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;

/** The UTC day a partition name stands for, or null for spans_default and foreign tables. */
export function partitionDay(name: string): Date | null {
  const m = NAME.exec(name);
  return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`) : null;
}

const startOfDay = (t: Date): Date => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);

/** The partitions of spans by name, the default one included. */
export async function listPartitions(db: Db): Promise<string[]> {
  const { rows } = await execute<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass('spans') order by c.relname`,
  );
  return rows.map((r) => r.name);
}

/**
 * Creates the day partitions for `from`'s day and the `aheadDays` after it that do not exist yet;
 * returns the names created. Rows the default partition holds in a new day's range move into it in
 * the same transaction (PostgreSQL refuses to add a partition whose rows sit in the default one).
 */
export async function ensureDayPartitions(
  db: Db,
  from: Date,
  aheadDays: number,
): Promise<string[]> {
  await keepPartitionStorage(db);
  const existing = new Set(await listPartitions(db));
  const first = startOfDay(from).getTime();
  const wanted = Array.from(
    { length: aheadDays + 1 },
    (_, i) => new Date(first + i * DAY_MS),
  ).filter((d) => !existing.has(partitionName(d)));
  const created: string[] = [];
  for (const day of wanted) {
    const name = partitionName(day);
    const lo = day.toISOString();
    const hi = new Date(day.getTime() + DAY_MS).toISOString();
    const made = await ddlTransaction(db, async (tx) => {
      // Another instance may have made it while this one waited for the lock.
      const { rows } = await execute<{ n: number }>(
        tx,
        sql`select count(*)::int as n from pg_class where relname = ${name} and relkind = 'r'`,
      );
      if ((rows[0]?.n ?? 0) > 0) return false;
      await tx.execute(sql`create temporary table spans_moving (like spans) on commit drop`);
      await tx.execute(sql`with moved as (delete from spans_default where started_at >= ${lo}::timestamptz and started_at < ${hi}::timestamptz returning *)
                           insert into spans_moving select * from moved`);
      await tx.execute(
        sql.raw(
          `create table "${name}" partition of spans for values from ('${lo}') to ('${hi}') with (${PARTITION_STORAGE})`,
        ),
      );
      await tx.execute(sql`insert into spans select * from spans_moving`);
      return true;
    });
    if (made) created.push(name);
  }
  return created;
}

/**
 * Gives PARTITION_STORAGE to the partitions made without it: spans_default (its migration) and the
 * day partitions of a server from before it. `ALTER TABLE … SET` of these settings waits only for
 * a vacuum or analyze of the same partition, not for reads or inserts; behind a long one it gives
 * up (lock_timeout) and the next hourly pass tries again.
 */
export async function keepPartitionStorage(db: Db): Promise<string[]> {
  const { rows } = await execute<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass('spans')
          and not coalesce(c.reloptions, '{}') @> array[${STORAGE_OPTION}]
        order by c.relname`,
  );
  for (const { name } of rows)
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local lock_timeout = '5s'`);
      await tx.execute(sql.raw(`alter table "${name}" set (${PARTITION_STORAGE})`));
    });
  return rows.map((r) => r.name);
}

/** Drops the day partitions that end at or before `cutoff` (every row in them is older); returns their names. */
export async function dropPartitionsBefore(db: Db, cutoff: Date): Promise<string[]> {
  const old = (await listPartitions(db)).filter((name) => {
    const day = partitionDay(name);
    return day !== null && day.getTime() + DAY_MS <= cutoff.getTime();
  });
  const dropped: string[] = [];
  for (const name of old) {
    await ddlTransaction(db, async (tx) => tx.execute(sql.raw(`drop table if exists "${name}"`)));
    dropped.push(name);
  }
  return dropped;
}

/**
 * Deletes rows older than `cutoff` from the default partition, in chunks (ctid is unique within
 * one partition, not across the parent). Returns how many went.
 */
export async function deleteDefaultBefore(db: Db, cutoff: Date, chunk = 10_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { count } = await execute(
      db,
      sql`delete from spans_default where ctid in (select ctid from spans_default where started_at < ${timestamptz(cutoff)} limit ${chunk})`,
    );
    deleted += count;
    if (count < chunk) return deleted;
  }
}
