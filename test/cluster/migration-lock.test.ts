import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';

describe.runIf(pgAdminUrl !== null)('migrations on PostgreSQL', () => {
  it('instances starting at once on an empty database all come up (the migrator takes an advisory lock)', async () => {
    const databaseUrl = await createPgDatabase();
    const opened = await Promise.allSettled(
      [1, 2, 3].map(() => openStore({ databaseUrl, dataDir: '', poolSize: 2 })),
    );
    const stores = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    await Promise.all(stores.map((s) => s.close()));
    expect(
      opened
        .filter((o) => o.status === 'rejected')
        .map((o) => String((o as PromiseRejectedResult).reason)),
    ).toEqual([]);
  });

  it('opens with a pool of one connection (the lock has a session of its own)', async () => {
    const databaseUrl = await createPgDatabase();
    const store = await openStore({ databaseUrl, dataDir: '', poolSize: 1 });
    try {
      await store.ping();
    } finally {
      await store.close();
    }
  });
});
