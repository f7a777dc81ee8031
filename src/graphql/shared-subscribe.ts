import {
  createSourceEventStream,
  execute,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from './builder.ts';

/**
 * Executes a subscription's selection once per event and shares the result with every subscriber
 * that asked the same thing (same document, operation, variables and caller). The bus hands one
 * event object to all its subscribers, so 200 dashboards watching spans cost one execution per
 * span instead of 200. The caller is part of the key so a resolver that reads its context can never
 * hand one caller's answer to another. Results are held only as long as the event object lives.
 * The caches belong to the plugin, so each app (each yoga instance) has its own.
 */
export function sharedSubscriptions(): Plugin<Context> {
  const shared: SharedResults = {
    byEvent: new WeakMap(),
    documentIds: new WeakMap(),
    nextDocumentId: 1,
  };
  const subscribe = (args: ExecutionArgs) => subscribeShared(shared, args);
  return {
    onSubscribe: ({ setSubscribeFn }) => setSubscribeFn(subscribe as never),
  };
}

interface SharedResults {
  /** Per event object, the results computed for it, by subscription key. */
  byEvent: WeakMap<object, Map<string, ExecutionResult | Promise<ExecutionResult>>>;
  documentIds: WeakMap<DocumentNode, number>;
  nextDocumentId: number;
}

async function subscribeShared(
  shared: SharedResults,
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const key = keyOf(shared, args);
  const it = source[Symbol.asyncIterator]();
  const run = (payload: unknown) => {
    if (payload === null || typeof payload !== 'object')
      return execute({ ...args, rootValue: payload });
    let perEvent = shared.byEvent.get(payload);
    if (!perEvent) shared.byEvent.set(payload, (perEvent = new Map()));
    let result = perEvent.get(key);
    if (!result) perEvent.set(key, (result = execute({ ...args, rootValue: payload })));
    return result;
  };
  // A plain iterator, not an async generator: a generator's return() waits behind a pending
  // next(), so a client that leaves while no event comes would never release its stream.
  const done = (): IteratorResult<ExecutionResult> => ({ value: undefined, done: true });
  const mapped: AsyncIterableIterator<ExecutionResult> &
    Required<Pick<AsyncIterator<ExecutionResult>, 'return' | 'throw'>> = {
    [Symbol.asyncIterator]() {
      return mapped;
    },
    async next() {
      const step = await it.next();
      // A shallow copy each: later plugins may set fields on the result they are handed.
      return step.done ? done() : { value: { ...(await run(step.value)) }, done: false };
    },
    async return() {
      await it.return?.();
      return done();
    },
    async throw(err: unknown) {
      if (it.throw) await it.throw(err);
      else await it.return?.();
      return done();
    },
  };
  return mapped;
}

function keyOf(shared: SharedResults, args: ExecutionArgs): string {
  let doc = shared.documentIds.get(args.document);
  if (doc === undefined) shared.documentIds.set(args.document, (doc = shared.nextDocumentId++));
  const p = (args.contextValue as Context | undefined)?.principal;
  const who = p ? `${p.role}|${p.projectId ?? '*'}|${p.keyId ?? p.actor}` : '-';
  return `${doc}|${args.operationName ?? ''}|${JSON.stringify(args.variableValues ?? {})}|${who}`;
}

function isAsyncIterable(x: unknown): x is AsyncIterable<unknown> {
  return typeof x === 'object' && x !== null && Symbol.asyncIterator in x;
}
