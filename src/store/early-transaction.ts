import type { PendingQuery, Row, Sql, TransactionSql } from 'postgres';

/**
 * A PostgreSQL transaction begun before the group it will commit is taken (the writer's
 * `open`): its BEGIN's round trip runs while the group's requests are still arriving, instead of
 * after the group is closed. At batch 25 a commit is bound by its round trips, each waiting for the
 * backend and for a busy event loop to come round (docs/benchmarks.md, batch 25 on PostgreSQL).
 *
 * `ready` resolves once the BEGIN is answered (or failed): the writer then takes the group, so it
 * holds what arrived meanwhile. The transaction is then given one body (`run`), which resolves as
 * `client.begin` does (committed, or rolled back and rejected), or discarded (rolled back).
 */
export interface EarlyTransaction {
  readonly ready: Promise<void>;
  run<T>(body: (tx: TransactionSql) => Promise<T>): Promise<T>;
  discard(): void;
}

export function beginEarly(client: Sql): EarlyTransaction {
  type Body = ((tx: TransactionSql) => Promise<unknown>) | null;
  let give!: (body: Body) => void;
  const body = new Promise<Body>((resolve) => (give = resolve));
  let began!: () => void;
  const ready = new Promise<void>((resolve) => (began = resolve));
  let settled = false;
  const done = client.begin(async (tx) => {
    began();
    const b = await body;
    // Not on a connection that closed while the group formed (begin has rejected already):
    // postgres.js may leave a query on a closed connection pending forever (its issue 1186).
    if (!b || settled) throw DISCARDED;
    return b(tx);
  });
  // A BEGIN that failed makes the writer go on too; run() then rejects with its error.
  const end = () => {
    settled = true;
    began();
  };
  done.then(end, end);
  let given = false;
  return {
    ready,
    run<T>(b: (tx: TransactionSql) => Promise<T>): Promise<T> {
      if (given) return Promise.reject(new Error('early transaction already used'));
      given = true;
      give(b);
      return done as Promise<T>;
    },
    discard() {
      if (given) return;
      given = true;
      give(null);
    },
  };
}

const DISCARDED = new Error('early transaction discarded');

/**
 * A transaction whose last statement has the COMMIT right behind it: `first` runs (awaited), then
 * `last` is sent and the transaction ends without waiting for its answer, one round trip fewer.
 * Resolves with `last`'s rows once committed. A failed `last` aborts the transaction, which
 * PostgreSQL answers at COMMIT with a ROLLBACK that postgres.js does not report as an error:
 * `last`'s own error is then this call's, as it would be in autocommit. In `early` when given
 * (the writer began it before the group was taken), else in a transaction begun now.
 *
 * The transaction's prepared statements take their generic plan (GENERIC_PLANS, sent ahead of
 * `first` without waiting for its answer): planned once per connection, not at every commit.
 */
export async function commitBehind<T extends readonly Row[]>(
  client: Sql,
  early: EarlyTransaction | undefined,
  last: (tx: TransactionSql) => PendingQuery<T>,
  first?: (tx: TransactionSql) => Promise<void>,
): Promise<T> {
  let result: Promise<T> | undefined;
  const body = async (tx: TransactionSql) => {
    genericPlans(tx);
    if (first) await first(tx);
    const r = last(tx).execute() as unknown as Promise<T>;
    // Observed below, once the COMMIT is answered; never left to reject unobserved.
    r.catch(() => undefined);
    result = r;
  };
  await (early ? early.run(body) : client.begin(body));
  return result as Promise<T>;
}

/**
 * For the rest of the transaction, prepared statements run on their generic plan, made once per
 * connection (and again after an ANALYZE of a table they read), instead of a custom plan made for
 * each execution's values. The writer's rollup upsert (rollup-sql.ts) gets the same plan shape
 * either way: its rows are JSON parameters, which the planner estimates at 100 rows whatever they
 * hold. With PostgreSQL's own choice (plan_cache_mode = auto) each connection made a custom plan
 * for its first five runs and sometimes after (the generic plan made and found dearer than the
 * custom plans' average): pg_stat_statements counted as many plans as runs of the upsert, or more,
 * 10-23 ms a plan in loaded bench cells; a custom plan cost a run ~1.3 ms more of the backend's CPU
 * than the generic plan in a probe at load 11 (docs/benchmarks.md, the writer's plans). SET LOCAL
 * ends with the transaction: the connection's other statements keep PostgreSQL's choice.
 */
export const GENERIC_PLANS = 'set local plan_cache_mode = force_generic_plan';

/** Sends GENERIC_PLANS in `tx` without waiting for its answer (its statements follow it in order). */
export function genericPlans(tx: TransactionSql): void {
  // A failure aborts the transaction, which its next statement then reports.
  tx.unsafe(GENERIC_PLANS)
    .execute()
    .catch(() => undefined);
}
