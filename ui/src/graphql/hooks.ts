import type { AnyVariables, OperationResult, TypedDocumentNode } from '@urql/core';
import { useEffect, useState } from 'preact/hooks';
import { client, describeError, type ReadableError } from './client.ts';

export interface QueryState<D> {
  data: D | undefined;
  error: ReadableError | undefined;
  fetching: boolean;
  /** Runs the query again (the error state's Retry button). */
  refetch: () => void;
}

/**
 * Runs a query while the component is mounted and whenever its variables change (compared as
 * JSON); `pollMs` refetches on an interval for tiles that should stay fresh.
 */
export function useQuery<D, V extends AnyVariables = AnyVariables>(
  doc: TypedDocumentNode<D, V> | string,
  variables?: V,
  opts: { pollMs?: number; pause?: boolean } = {},
): QueryState<D> {
  const key = JSON.stringify(variables ?? {});
  const [tick, setTick] = useState(0);
  const [state, setState] = useState<Omit<QueryState<D>, 'refetch'>>({
    data: undefined,
    error: undefined,
    fetching: !opts.pause,
  });
  useEffect(() => {
    if (opts.pause) return;
    let live = true;
    setState((s) => ({ ...s, fetching: true }));
    const run = () =>
      client
        .query(doc, (variables ?? {}) as V)
        .toPromise()
        .then((r: OperationResult<D, V>) => {
          if (!live) return;
          setState({
            data: r.data ?? undefined,
            error: r.error ? describeError(r.error) : undefined,
            fetching: false,
          });
        });
    void run();
    const timer = opts.pollMs ? setInterval(() => void run(), opts.pollMs) : undefined;
    return () => {
      live = false;
      if (timer) clearInterval(timer);
    };
  }, [doc, key, tick, opts.pause, opts.pollMs]);
  return { ...state, refetch: () => setTick((t) => t + 1) };
}

/** Calls `onData` for every event of a subscription while mounted (graphql-ws). */
export function useSubscription<D, V extends AnyVariables = AnyVariables>(
  doc: TypedDocumentNode<D, V> | string,
  variables: V | undefined,
  onData: (data: D) => void,
  onError?: (err: ReadableError) => void,
): void {
  const key = JSON.stringify(variables ?? {});
  useEffect(() => {
    const sub = client.subscription(doc, (variables ?? {}) as V).subscribe((r) => {
      if (r.error) onError?.(describeError(r.error));
      else if (r.data) onData(r.data);
    });
    return () => sub.unsubscribe();
  }, [doc, key]);
}
