import { AsyncLocalStorage } from 'node:async_hooks';
import { SQL, StringChunk } from 'drizzle-orm';
import type { Db } from './db.ts';

/**
 * Read replica routing (SPYGLASS_DATABASE_READ_URL). The store's Db is one object every service
 * holds; with a replica it is a proxy that sends each query to the replica while the code runs
 * inside `readsFromReplica` (the handler of a read-only GET route, a GraphQL query operation) and
 * to the primary everywhere else: ingest, mutations, auth's key lookups (they record last use, and
 * run in hooks before the handler), background jobs, migrations. A query builder binds to the
 * database it was made from, so the choice is made when a query starts.
 */
const scope = new AsyncLocalStorage<true>();

/** Runs `fn` with its queries (and everything it awaits) sent to the replica, if there is one. */
export function readsFromReplica<T>(fn: () => T): T {
  return scope.run(true, fn);
}

/** True inside readsFromReplica. */
export const inReadScope = (): boolean => scope.getStore() === true;

/** Builders that always write, and transactions (which may): never sent to the replica. */
const WRITES = new Set<PropertyKey>([
  'insert',
  'update',
  'delete',
  'transaction',
  'refreshMaterializedView',
]);
/** Raw SQL that writes or locks (a read route may record a state, e.g. GET /api/slos/status). */
const WRITING_SQL =
  /\b(insert|update|delete|merge|create|drop|alter|truncate|analyze|vacuum|lock|for\s+(no\s+key\s+)?update|for\s+share)\b/i;

/**
 * A Db that is `replica` inside readsFromReplica and `primary` elsewhere. Inside the scope, writes
 * still go to the primary: the write builders, transactions, and raw SQL whose text names a
 * writing or locking statement, so a read route that also records something keeps working.
 */
export function routingDb(primary: Db, replica: Db): Db {
  return new Proxy(primary, {
    get(_target, prop) {
      const db = inReadScope() && !WRITES.has(prop) ? replica : primary;
      if (prop === 'execute' && db === replica) {
        return (query: SQL) =>
          (WRITING_SQL.test(sqlText(query)) ? primary : replica).execute(query);
      }
      const value: unknown = Reflect.get(db, prop, db);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(db) : value;
    },
  });
}

/** The statement text of a drizzle SQL object without its parameters (its string chunks). */
function sqlText(query: SQL): string {
  let text = '';
  for (const chunk of query.queryChunks) {
    if (chunk instanceof StringChunk) text += chunk.value.join('');
    else if (chunk instanceof SQL) text += sqlText(chunk);
    else text += ' ';
  }
  return text;
}
