import { stringifyDocument } from '@urql/core';
import { createClient } from 'graphql-ws';
import { createBackoff } from '../../lib/reconnect.ts';
import { SPAN_NEW, type LiveRow } from './queries.ts';

export type FeedStatus =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'waiting'; seconds: number; attempt: number }
  | { kind: 'error'; message: string };

export interface FeedHandlers {
  onSpan(span: LiveRow): void;
  onStatus(status: FeedStatus): void;
  /** After every connection (the first too): time to query what the socket could not deliver. */
  onConnected(): void;
}

/**
 * The live page's own graphql-ws connection, so its reconnects follow reconnect.ts: exponential
 * backoff with jitter that resets only after the socket stayed up. Same origin, so the session
 * cookie travels with the upgrade. Returns the function that closes it.
 */
export function openFeed(projectId: string | null, h: FeedHandlers): () => void {
  const backoff = createBackoff();
  const url = `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}/graphql`;
  const ws = createClient({
    url,
    lazy: true,
    retryAttempts: Infinity,
    shouldRetry: () => true,
    retryWait: (n) => {
      const ms = backoff.nextDelay();
      h.onStatus({ kind: 'waiting', seconds: Math.ceil(ms / 1000), attempt: n + 1 });
      return new Promise((r) => setTimeout(r, ms));
    },
    on: {
      connecting: () => h.onStatus({ kind: 'connecting' }),
      connected: () => {
        backoff.connected();
        h.onStatus({ kind: 'live' });
        h.onConnected();
      },
      closed: () => backoff.disconnected(),
    },
  });
  const stop = ws.subscribe<{ spanNew: LiveRow }>(
    { query: stringifyDocument(SPAN_NEW), variables: { projectId } },
    {
      next: (r) => {
        if (r.data?.spanNew) h.onSpan(r.data.spanNew);
        else if (r.errors?.[0]) h.onStatus({ kind: 'error', message: r.errors[0].message });
      },
      error: (e) =>
        h.onStatus({
          kind: 'error',
          message: e instanceof Error ? e.message : 'connection refused',
        }),
      complete: () => undefined,
    },
  );
  return () => {
    stop();
    void ws.dispose();
  };
}
