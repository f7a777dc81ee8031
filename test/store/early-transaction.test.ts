import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginEarly, commitBehind } from '../../src/store/early-transaction.ts';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';

/**
 * The writer's transactions on PostgreSQL: the last statement with the COMMIT right behind it,
 * in a transaction begun now or begun early. What the caller is told is what was stored.
 */
describe.runIf(pgAdminUrl !== null)(
  'a transaction committed right behind its last statement',
  () => {
    let sql: Sql;
    let other: Sql;
    beforeAll(async () => {
      const url = await createPgDatabase();
      sql = postgres(url, { max: 2, onnotice: () => {} });
      other = postgres(url, { max: 1 });
      await sql`create table t (id int primary key, note text not null)`;
    }, 60_000);
    afterAll(async () => {
      await Promise.all([sql?.end(), other?.end()]);
    });

    const stored = async () => (await other`select id from t order by id`).map((r) => r.id);
    const insert = (id: number) => async (tx: postgres.TransactionSql) => {
      await tx`insert into t values (${id}, 'first')`;
    };

    for (const early of [false, true])
      describe(early ? 'begun early' : 'begun now', () => {
        const base = early ? 100 : 200;
        const open = () => (early ? beginEarly(sql) : undefined);

        it("resolves with the last statement's rows once both statements are committed", async () => {
          const tx = open();
          await tx?.ready;
          const rows = await commitBehind(
            sql,
            tx,
            (t) => t`insert into t values (${base + 2}, 'last') returning id`,
            insert(base + 1),
          );
          expect(rows.map((r) => r.id)).toEqual([base + 2]);
          expect(await stored()).toEqual(expect.arrayContaining([base + 1, base + 2]));
        });

        it("rejects with the last statement's own error and stores nothing of the transaction", async () => {
          const tx = open();
          await tx?.ready;
          const failed = commitBehind(
            sql,
            tx,
            (t) => t`insert into t values (${base + 3}, null)`,
            insert(base + 4),
          );
          await expect(failed).rejects.toThrow(/null value in column "note"/);
          expect(await stored()).not.toEqual(expect.arrayContaining([base + 4]));
          expect(await stored()).not.toEqual(expect.arrayContaining([base + 3]));
        });

        it('rejects when the first step fails, and the last statement is never stored', async () => {
          const tx = open();
          await tx?.ready;
          const failed = commitBehind(
            sql,
            tx,
            (t) => t`insert into t values (${base + 5}, 'last')`,
            async (t) => {
              await t`insert into t values (${base + 1}, 'a duplicate key')`;
            },
          );
          await expect(failed).rejects.toThrow(/duplicate key/);
          expect(await stored()).not.toEqual(expect.arrayContaining([base + 5]));
        });
      });

    it('an early transaction discarded stores nothing and frees its connection', async () => {
      const tx = beginEarly(sql);
      await tx.ready;
      tx.discard();
      await expect(tx.run(async (t) => t`select 1`)).rejects.toThrow(/already used/);
      // Both of the pool's connections serve again.
      const [a, b] = await Promise.all([sql`select 1 as x`, sql`select 2 as x`]);
      expect([a[0]?.x, b[0]?.x]).toEqual([1, 2]);
    });
  },
);
