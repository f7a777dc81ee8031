import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres, { type Options, type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startPgliteThread,
  threadExecArgv,
  type PgliteThread,
} from '../../src/store/pglite-thread.ts';
import { seededDataDir } from '../helpers/data-dir.ts';

/** The embedded database on its own thread (src/store/pglite-thread.ts), spoken to by postgres.js. */
describe('PGlite on a thread', () => {
  let thread: PgliteThread;
  let sql: Sql;
  // Copies of the run's migrated database (test/helpers/data-dir.ts): no initdb per thread.
  const dirs: string[] = [];
  const database = () => {
    const dir = seededDataDir('spyglass-pglite-thread-');
    dirs.push(dir);
    return join(dir, 'pglite');
  };

  const connect = (max: number) =>
    postgres({
      socket: () => thread.socket(),
      max,
      user: 'postgres',
      database: 'postgres',
      onnotice: () => {},
    } as Options<Record<string, never>>);

  beforeAll(async () => {
    thread = await startPgliteThread(database(), []);
    sql = connect(2);
    await sql`create table t (id int primary key, body text)`;
  });
  afterAll(async () => {
    await sql.end({ timeout: 5 });
    await thread.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('answers queries with parameters, JSON and large values', async () => {
    const big = 'x'.repeat(3_000_000);
    const [row] =
      await sql`select ${'a'}::text as a, ${sql.json({ k: [1, 2] })}::jsonb as j, length(${big}) as n`;
    expect(row).toEqual({ a: 'a', j: { k: [1, 2] }, n: 3_000_000 });
  });

  it("keeps one connection's transaction apart from another connection's statements", async () => {
    let insideTx!: () => void;
    const txStarted = new Promise<void>((r) => (insideTx = r));
    let finishTx!: () => void;
    const txMayFinish = new Promise<void>((r) => (finishTx = r));
    const tx = sql.begin(async (t) => {
      await t`insert into t values (1, 'in a transaction')`;
      insideTx();
      await txMayFinish;
      await t`insert into t values (2, 'in a transaction')`;
    });
    await txStarted;
    // The other connection's read runs only once the transaction ended: it sees both rows or none.
    const read = sql`select count(*)::int as n from t where id in (1, 2)`;
    finishTx();
    await tx;
    expect((await read)[0]).toEqual({ n: 2 });
  });

  it('rolls back a transaction whose connection ended half-way', async () => {
    const lone = connect(1);
    let insideTx!: () => void;
    const txStarted = new Promise<void>((r) => (insideTx = r));
    const tx = lone
      .begin(async (t) => {
        await t`insert into t values (10, 'never committed')`;
        insideTx();
        await new Promise(() => {}); // never finishes: its connection is ended under it
      })
      .catch(() => 'ended');
    await txStarted;
    await lone.end({ timeout: 0 });
    expect(await tx).toBe('ended');
    expect(await sql`select * from t where id = 10`).toHaveLength(0);
    // and the database serves the other connections afterwards
    expect((await sql`select 1 as one`)[0]).toEqual({ one: 1 });
  });

  it("loads COPY rows into the caller's transaction, which a failed COPY fails as a whole", async () => {
    const rows = (text: string) => new TextEncoder().encode(text);
    const copy = "copy t (id, body) from '/dev/blob'";
    await expect(thread.copyIn(copy, rows('20\tno transaction\n'))).rejects.toThrow(/transaction/);
    await sql.begin(async (t) => {
      await t`insert into t values (21, 'before the copy')`;
      await thread.copyIn(copy, rows('22\ttab\\there\n23\t\\N\n'));
    });
    const kept = await sql`select id, body from t where id between 20 and 23 order by id`;
    expect(kept).toEqual([
      { id: 21, body: 'before the copy' },
      { id: 22, body: 'tab\there' },
      { id: 23, body: null },
    ]);
    // A duplicate key: the COPY is refused with the database's message, nothing of the
    // transaction stays, and the connection serves the next statement.
    const failed = sql.begin(async (t) => {
      await t`insert into t values (24, 'rolled back')`;
      await thread.copyIn(copy, rows('25\tnew\n22\tagain\n'));
    });
    await expect(failed).rejects.toThrow(/duplicate key/);
    expect(await sql`select id from t where id in (24, 25)`).toHaveLength(0);
    expect((await sql`select 1 as one`)[0]).toEqual({ one: 1 });
  });

  it('starts when node runs with V8 flags, which a thread refuses in its execArgv', async () => {
    // As `node --max-semi-space-size=16 bin/spyglass.js serve` gives them (ERR_WORKER_INVALID_EXEC_ARGV before).
    process.execArgv.push('--max-semi-space-size=16');
    let other: PgliteThread;
    try {
      other = await startPgliteThread(database(), []);
    } finally {
      process.execArgv.pop();
    }
    const db = postgres({
      socket: () => other.socket(),
      max: 1,
      user: 'postgres',
      database: 'postgres',
    } as Options<Record<string, never>>);
    try {
      expect((await db`select 1 as one`)[0]).toEqual({ one: 1 });
    } finally {
      await db.end({ timeout: 5 });
      await other.close();
    }
  });

  it('says why when the database cannot start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-pglite-bad-'));
    try {
      writeFileSync(join(dir, 'PG_VERSION'), 'not a version\n');
      await expect(startPgliteThread(dir, [])).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the database thread's flags", () => {
  it("keeps the process's flags but its preloads, in both spellings, and -e's --input-type", () => {
    expect(
      threadExecArgv([
        '--max-old-space-size=512',
        '--import',
        'file:///a/instrument.mjs',
        '--import=file:///b/stall-trace.ts',
        '-r',
        './hook.cjs',
        '--require=./other.cjs',
        '--loader',
        'tsx',
        '--experimental-loader=./l.mjs',
        '--input-type=module',
        '--cpu-prof',
        '--cpu-prof-dir=/tmp/p',
      ]),
    ).toEqual(['--max-old-space-size=512', '--cpu-prof', '--cpu-prof-dir=/tmp/p']);
  });
});
