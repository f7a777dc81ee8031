import {
  Client,
  CombinedError,
  fetchExchange,
  subscriptionExchange,
  type AnyVariables,
  type TypedDocumentNode,
} from '@urql/core';
import { createClient as createWsClient } from 'graphql-ws';

/**
 * The one GraphQL client (docs/ui.md#auth): queries and mutations by POST with a JSON body and
 * the `X-Requested-With` header (both make the request non-simple, which the server requires of
 * cookie-authenticated calls), subscriptions over graphql-ws on the same origin. The session
 * cookie travels by itself (same origin); the UI never sees it.
 */
export const UI_HEADER = { 'x-requested-with': 'spyglass-ui' } as const;

const wsUrl = `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}/graphql`;

export const ws = createWsClient({
  url: wsUrl,
  lazy: true,
  retryAttempts: Infinity,
  // Backoff with jitter up to ~30 s between reconnects.
  retryWait: (n) =>
    new Promise((r) => setTimeout(r, Math.min(30_000, 500 * 2 ** n) * (0.5 + Math.random() / 2))),
  shouldRetry: () => true,
});

export const client = new Client({
  url: '/graphql',
  preferGetMethod: false,
  requestPolicy: 'network-only',
  fetchOptions: () => ({ credentials: 'same-origin', headers: { ...UI_HEADER } }),
  exchanges: [
    fetchExchange,
    subscriptionExchange({
      forwardSubscription: (request) => ({
        subscribe: (sink) => ({
          unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink),
        }),
      }),
    }),
  ],
});

/** Runs a query once; throws a readable error (see describeError). */
export async function query<D, V extends AnyVariables = AnyVariables>(
  doc: TypedDocumentNode<D, V> | string,
  variables?: V,
): Promise<D> {
  const r = await client.query(doc, (variables ?? {}) as V).toPromise();
  if (r.error) throw r.error;
  return r.data as D;
}

/** Runs a mutation; throws the GraphQL error when it fails. */
export async function mutate<D, V extends AnyVariables = AnyVariables>(
  doc: TypedDocumentNode<D, V> | string,
  variables?: V,
): Promise<D> {
  const r = await client.mutation(doc, (variables ?? {}) as V).toPromise();
  if (r.error) throw r.error;
  return r.data as D;
}

export interface ReadableError {
  /** What went wrong, in the server's words. */
  message: string;
  /** The GraphQL error code (UNAUTHENTICATED, FORBIDDEN, RATE_LIMITED…) or NETWORK. */
  code: string;
  /** What the user can do about it. */
  hint: string;
}

const HINTS: Record<string, string> = {
  UNAUTHENTICATED: 'Sign in again: your session has expired or was ended.',
  FORBIDDEN: 'Your role or project scope does not allow this; ask an admin.',
  RATE_LIMITED: 'Too many requests: wait a minute and retry.',
  NETWORK: 'The server did not answer: check that `spyglass serve` is running, then retry.',
  BAD_USER_INPUT: 'Check the filters in the address bar.',
  GRAPHQL_VALIDATION_FAILED:
    'The dashboard and the server disagree on the schema: rebuild the UI (npm run build).',
};

/** Turns a urql error into what the error state shows. */
export function describeError(err: unknown): ReadableError {
  if (err instanceof CombinedError) {
    const g = err.graphQLErrors[0];
    if (g) {
      const code = String(g.extensions?.code ?? 'ERROR');
      return {
        message: g.message,
        code,
        hint: HINTS[code] ?? 'Retry; if it keeps failing, see the server log.',
      };
    }
    return {
      message: err.networkError?.message ?? err.message,
      code: 'NETWORK',
      hint: HINTS.NETWORK as string,
    };
  }
  return {
    message: err instanceof Error ? err.message : String(err),
    code: 'ERROR',
    hint: 'Retry.',
  };
}

/** Whether the error means "not signed in": the app shows the login page. */
export function isUnauthenticated(err: unknown): boolean {
  return (
    err instanceof CombinedError &&
    err.graphQLErrors.some((g) => g.extensions?.code === 'UNAUTHENTICATED')
  );
}
