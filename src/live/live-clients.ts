import type { Principal } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';

export type LiveKind = 'sse' | 'graphql-sse' | 'graphql-ws';

export interface LiveLimits {
  /** Live connections of every kind together (spec §8: 200). */
  maxClients: number;
  /** Live connections one key (or proxied user, or the local admin) may hold. */
  maxPerKey: number;
  /** GraphQL subscriptions at once on one connection (decisions §12: 20). */
  maxSubscriptions: number;
  /** Events buffered per consumer; the oldest is dropped beyond it (spec §6.1: 50). */
  buffer: number;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = { maxClients: 200, maxPerKey: 50, maxSubscriptions: 20, buffer: 50 };

/** One open live connection: an SSE stream, a GraphQL-over-SSE request or a GraphQL WebSocket. */
export class LiveConnection {
  subscriptions = 0;
  /** For a WebSocket: a promise while its socket is congested (see StreamOptions.ready). */
  ready: (() => Promise<void> | undefined) | undefined;
  private ended = false;

  constructor(
    readonly kind: LiveKind,
    readonly owner: string,
    readonly keyId: string | null,
    private readonly registry: LiveClients,
    private readonly onEnd: (reason: string, closeCode: number) => void,
  ) {}

  /** Counts one more subscription on this connection; the returned function uncounts it. */
  addSubscription(): () => void {
    if (this.subscriptions >= this.registry.limits.maxSubscriptions) {
      throw new SpyglassError('rate_limited', `at most ${this.registry.limits.maxSubscriptions} subscriptions per connection`);
    }
    this.subscriptions++;
    let done = false;
    return () => {
      if (!done) this.subscriptions--;
      done = true;
    };
  }

  /**
   * Ends the connection from the server side and frees its place. `closeCode` is what a WebSocket
   * closes with: 4403 (forbidden: the key was revoked) or 1001 (going away: shutdown).
   */
  end(reason: string, closeCode = 4403): void {
    if (this.ended) return;
    this.release();
    this.onEnd(reason, closeCode);
  }

  /** Frees its place once the client is gone. Idempotent. */
  release(): void {
    if (this.ended) return;
    this.ended = true;
    this.registry.forget(this);
  }
}

/**
 * The one budget of live clients (decisions §12): every kind counts against the same total and
 * the same per-key share, and a revoked key's connections can be found and ended.
 */
export class LiveClients {
  private readonly open = new Set<LiveConnection>();
  private readonly perOwner = new Map<string, number>();

  constructor(
    readonly limits: LiveLimits = DEFAULT_LIVE_LIMITS,
    private readonly onChange?: (counts: Record<LiveKind, number>) => void,
  ) {}

  get count(): number {
    return this.open.size;
  }

  /** A place for a new connection, or the reason it gets none. */
  connect(kind: LiveKind, principal: Principal, onEnd: (reason: string, closeCode: number) => void): LiveConnection | { refused: string } {
    if (this.open.size >= this.limits.maxClients) return { refused: `too many live clients (max ${this.limits.maxClients})` };
    const owner = principal.keyId ?? principal.actor;
    const held = this.perOwner.get(owner) ?? 0;
    if (held >= this.limits.maxPerKey) return { refused: `too many live clients for this key (max ${this.limits.maxPerKey})` };
    const conn = new LiveConnection(kind, owner, principal.keyId, this, onEnd);
    this.open.add(conn);
    this.perOwner.set(owner, held + 1);
    this.changed();
    return conn;
  }

  /** Ends every connection opened with one of these keys. */
  endForKeys(keyIds: readonly string[], reason: string): number {
    const ids = new Set(keyIds);
    let n = 0;
    for (const conn of [...this.open]) {
      if (conn.keyId !== null && ids.has(conn.keyId)) {
        conn.end(reason);
        n++;
      }
    }
    return n;
  }

  /** The distinct stored keys behind open connections (for the periodic revocation check). */
  keyIds(): string[] {
    const ids = new Set<string>();
    for (const conn of this.open) if (conn.keyId !== null) ids.add(conn.keyId);
    return [...ids];
  }

  /** Ends every connection (shutdown). */
  endAll(reason: string): void {
    for (const conn of [...this.open]) conn.end(reason, 1001);
  }

  /** Called by LiveConnection.release(). */
  forget(conn: LiveConnection): void {
    if (!this.open.delete(conn)) return;
    const held = (this.perOwner.get(conn.owner) ?? 1) - 1;
    if (held <= 0) this.perOwner.delete(conn.owner);
    else this.perOwner.set(conn.owner, held);
    this.changed();
  }

  private changed(): void {
    if (!this.onChange) return;
    const counts: Record<LiveKind, number> = { sse: 0, 'graphql-sse': 0, 'graphql-ws': 0 };
    for (const c of this.open) counts[c.kind]++;
    this.onChange(counts);
  }
}
