import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { readsFromReplica } from '../store/read-routing.ts';
import type { Context } from './builder.ts';

/**
 * Query operations execute inside readsFromReplica, so their resolvers read from the replica when
 * SPYGLASS_DATABASE_READ_URL is set; mutations and subscriptions stay on the primary. Context
 * creation (the caller's key) happens before execution, on the primary.
 */
export function replicaQueries(): Plugin<Context> {
  return {
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      setExecuteFn((a) => readsFromReplica(() => executeFn(a)));
    },
  };
}
