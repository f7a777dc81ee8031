import { sql } from 'drizzle-orm';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { safeErr } from '../../src/logger.ts';
import { openStore } from '../../src/store/open-store.ts';
import { seededDataDir } from '../helpers/data-dir.ts';

describe('error logging', () => {
  it('logs a failed statement with its error, never its SQL parameters', async () => {
    const dataDir = seededDataDir();
    const store = await openStore({ dataDir });
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
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
