import { AsyncLocalStorage } from 'node:async_hooks';
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

/** A Db that is `replica` inside readsFromReplica and `primary` elsewhere. */
export function routingDb(primary: Db, replica: Db): Db {
  return new Proxy(primary, {
    get(_target, prop) {
      const db = inReadScope() ? replica : primary;
      const value: unknown = Reflect.get(db, prop, db);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(db) : value;
    },
  });
}
