import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface Subscription {
  received: any[];
  errors: any[];
  /** Resolves once the subscription ended (completed or failed). */
  ended: Promise<void>;
  /** Resolves once `n` results arrived. */
  count(n: number): Promise<void>;
}

export interface WsSession {
  client: Client;
  socket: WebSocket;
  /** The close event's code and reason, once the socket closed. */
  closed: Promise<{ code: number; reason: string }>;
  subscribe(query: string, variables?: Record<string, unknown>): Subscription;
  dispose(): Promise<void>;
}

/** A graphql-ws client on a real socket; resolves once connection_ack arrived, rejects on close. */
export function openWs(
  httpUrl: string,
  connectionParams: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<WsSession> {
  const url = `${httpUrl.replace('http', 'ws')}/graphql`;
  let onClosed!: (e: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (onClosed = r));
  class HeaderSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  const client = createClient({
    url,
    webSocketImpl: HeaderSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  client.on('closed', (e) => {
    const ev = e as { code: number; reason: string | Buffer };
    onClosed({ code: ev.code, reason: String(ev.reason) });
  });
  return new Promise((resolve, reject) => {
    client.on('connected', (socket) => {
      const ws = socket as WebSocket;
      resolve({
        client,
        socket: ws,
        closed,
        subscribe: (query, variables) => subscribe(client, query, variables),
        dispose: () => client.dispose() as Promise<void>,
      });
    });
    void closed.then((e) =>
      reject(new Error(`closed before connection_ack: ${e.code} ${e.reason}`)),
    );
  });
}

function subscribe(
  client: Client,
  query: string,
  variables?: Record<string, unknown>,
): Subscription {
  const received: any[] = [];
  const errors: any[] = [];
  const waiters: (() => void)[] = [];
  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };
  const ended = new Promise<void>((resolve) => {
    client.subscribe(variables ? { query, variables } : { query }, {
      next: (v) => {
        if (v.errors) errors.push(...v.errors);
        else received.push(v.data);
        notify();
      },
      error: (e) => {
        errors.push(...(Array.isArray(e) ? e : [e]));
        notify();
        resolve();
      },
      complete: () => resolve(),
    });
  });
  const count = async (n: number) => {
    while (received.length < n) await new Promise<void>((r) => waiters.push(r));
  };
  return { received, errors, ended, count };
}
