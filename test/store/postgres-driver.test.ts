import type { Socket } from 'node:net';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { noDelaySockets } from '../../src/store/pg-socket.ts';
import { pgAdminUrl } from '../helpers/backends.ts';

/**
 * postgres.js as patched at install (patches/postgres+3.4.9.patch, docs/architecture.md): a
 * connection that goes away at a bad moment is opened again and serves the next query. Before the
 * patch, each case here left the connection unusable: its startup message never sent (every later
 * query on it ended in CONNECT_TIMEOUT), a query never settled, or its first query after a
 * reconnect failed with the old connection's error. A clean-clone run met the first when
 * PostgreSQL stopped under load: the writer never committed again once the database was back.
 */
/** 'answered', or the code the query failed with. */
const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (err: { code?: string }) => err.code ?? 'error',
  );

describe.runIf(pgAdminUrl !== null)('a PostgreSQL connection lost at a bad moment', () => {
  let sql: postgres.Sql | undefined;
  afterEach(async () => {
    await sql?.end({ timeout: 1 });
    sql = undefined;
  });

  /** A pool of one connection through the server's own sockets, and the sockets it opened. */
  function pool() {
    const make = noDelaySockets();
    const sockets: Socket[] = [];
    sql = postgres(
      pgAdminUrl as string,
      {
        max: 1,
        connect_timeout: 3,
        onnotice: () => {},
        socket: (target: Parameters<typeof make>[0]) => {
          const s = make(target);
          sockets.push(s);
          return s;
        },
      } as postgres.Options<Record<string, never>>,
    );
    return { sql, current: () => sockets.at(-1) as Socket, opened: () => sockets.length };
  }

  const kill = (socket: Socket, how: 'closed' | 'reset') =>
    how === 'closed'
      ? socket.destroy()
      : socket.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));

  for (const how of ['closed', 'reset'] as const) {
    it(`with a message not yet sent (${how}): the query fails, the next one is answered`, async () => {
      const { sql, current, opened } = pool();
      expect(await sql`select 1 as n`).toEqual([{ n: 1 }]);
      // Inside an immediate, the query's message waits for the next check phase once its handler
      // has run (a few microtasks on); the socket goes away in this turn, so its close (the loop's
      // close phase) comes before the message is sent.
      const lost = await new Promise<Promise<string>>((resolve) =>
        setImmediate(async () => {
          const answer = settled(sql`select 2 as n`);
          for (let i = 0; i < 20; i++) await null;
          kill(current(), how);
          resolve(answer);
        }),
      );
      expect(await lost).not.toBe('answered');
      // A query given to the connection between its error and its close fails too (before: never
      // settled); the one after is answered on a new connection.
      expect(['answered', 'CONNECTION_CLOSED']).toContain(await settled(sql`select 3 as n`));
      expect(await sql`select 4 as n`).toEqual([{ n: 4 }]);
      expect(opened()).toBe(2);
    });

    it(`in a transaction (${how}): the transaction fails, the next query is answered`, async () => {
      const { sql, current } = pool();
      const tx = sql.begin(async (t) => {
        await t`select 1`;
        kill(current(), how);
        await t`select 2`;
      });
      // postgres.js then rolls back on the closed connection; before the patch that write threw
      // from a timer (the process's uncaught exception) and left the connection unusable.
      expect(await settled(tx)).not.toBe('answered');
      expect(await sql`select 5 as n`).toEqual([{ n: 5 }]);
    });
  }
});

describe.runIf(pgAdminUrl !== null)('a PostgreSQL connection ended by the server', () => {
  it('mid-query (as in a fast shutdown): the query fails, the next one on the new connection is answered', async () => {
    const sql = postgres(pgAdminUrl as string, { max: 1, connect_timeout: 3, onnotice: () => {} });
    const admin = postgres(pgAdminUrl as string, { max: 1, onnotice: () => {} });
    try {
      const [{ pid }] = (await sql`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
      const sleeping = settled(sql`select pg_sleep(30)`);
      // Once the backend runs it, the query is ended as a fast shutdown ends it: FATAL 57P01, then
      // the close.
      await expect
        .poll(async () => {
          const rows = await admin`select state from pg_stat_activity where pid = ${pid}`;
          return (rows[0] as { state?: string } | undefined)?.state;
        })
        .toBe('active');
      await admin`select pg_terminate_backend(${pid})`;
      expect(await sleeping).not.toBe('answered');
      // Before the patch the reconnected connection handed its first query the old FATAL.
      expect(await sql`select 6 as n`).toEqual([{ n: 6 }]);
    } finally {
      await sql.end({ timeout: 1 });
      await admin.end({ timeout: 1 });
    }
  });
});
