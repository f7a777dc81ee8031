import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { safeErr } from '../../src/logger.ts';
import { pooledPgliteStore } from '../helpers/store-pool.ts';

describe('error logging', () => {
  it('logs a failed statement with its error, never its SQL parameters', async () => {
    const store = await pooledPgliteStore();
    const secret = 'sk-live-payload-that-must-not-reach-the-log';
    try {
      const err = await store.db
        .execute(sql`insert into no_such_table (x) values (${secret})`)
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(Error);
      // The driver does attach the parameters to the error it throws...
      expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).toContain(secret);
      // ...but what the logger writes keeps the message and drops them.
      const logged = JSON.stringify(safeErr(err));
      expect(logged).not.toContain(secret);
      expect(logged).toContain('no_such_table');
    } finally {
      await store.close();
    }
  }, 120_000);
});
