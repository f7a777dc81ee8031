import type { Principal } from '../auth/principal.ts';
import { sha256 } from '../auth/secrets.ts';
import { SharedSlots } from '../scale/coord/slots.ts';
import { SpyglassError } from '../errors.ts';

export type LiveKind = 'sse' | 'graphql-sse' | 'graphql-ws';

export interface LiveLimits {
  /** Live connections of every kind together (docs/api.md#live-clients-one-budget: 200). */
  maxClients: number;
  /**
   * Live connections one key (or proxied user, or the local admin) may hold, across every worker
   * and instance with Redis (src/scale/coord/slots.ts).
   */
  maxPerKey: number;
  /** GraphQL subscriptions at once on one connection (docs/api.md#live-clients-one-budget: 20). */
  maxSubscriptions: number;
  /** Events buffered per consumer; the oldest is dropped beyond it (docs/api.md#live-clients-one-budget: 50). */
  buffer: number;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  maxClients: 200,
  maxPerKey: 50,
  maxSubscriptions: 20,
  buffer: 50,
};

/** One open live connection: an SSE stream, a GraphQL-over-SSE request or a GraphQL WebSocket. */
export class LiveConnection {
  subscriptions = 0;
  /** For a WebSocket: a promise while its socket is congested (see StreamOptions.ready). */
  ready: (() => Promise<void> | undefined) | undefined;
  private ended = false;

  constructor(
    readonly kind: LiveKind,
    /** The owner's scope in the shared per-key places. */
    readonly owner: string,
    readonly keyId: string | null,
    private readonly registry: LiveClients,
    private readonly onEnd: (reason: string, closeCode: number) => void,
  ) {}

  /** Counts one more subscription on this connection; the returned function uncounts it. */
  addSubscription(): () => void {
    if (this.subscriptions >= this.registry.limits.maxSubscriptions) {
      throw new SpyglassError(
        'rate_limited',
        `at most ${this.registry.limits.maxSubscriptions} subscriptions per connection`,
      );
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
 * The one budget of live clients (docs/api.md#live-clients-one-budget): every kind counts against the same total and
 * the same per-key share, and a revoked key's connections can be found and ended. The total is
 * this process's; the per-key cap is held in `slots`, cluster-wide when Redis is configured.
 */
export class LiveClients {
  private readonly open = new Set<LiveConnection>();
  /** Connections waiting for their per-key place: they count against the total already. */
  private joining = 0;

  constructor(
    readonly limits: LiveLimits = DEFAULT_LIVE_LIMITS,
    private readonly onChange?: (counts: Record<LiveKind, number>) => void,
    private readonly slots: SharedSlots = new SharedSlots(undefined, {
      prefix: '',
      instanceId: '',
      leaseMs: 0,
      workers: 1,
    }),
  ) {}

  get count(): number {
    return this.open.size;
  }

  /**
   * A place for a new connection, or the reason it gets none. The caller checks that its client
   * is still there once this resolves, and releases the place if not.
   */
  async connect(
    kind: LiveKind,
    principal: Principal,
    onEnd: (reason: string, closeCode: number) => void,
  ): Promise<LiveConnection | { refused: string }> {
    if (this.open.size + this.joining >= this.limits.maxClients)
      return { refused: `too many live clients (max ${this.limits.maxClients})` };
    // Hashed: a proxied user's actor is an email address, which has no place in Redis keys.
    const owner = `key:${sha256(principal.keyId ?? principal.actor).slice(0, 32)}`;
    this.joining++;
    const ok = await this.slots.take(owner, this.limits.maxPerKey).finally(() => this.joining--);
    if (!ok)
      return { refused: `too many live clients for this key (max ${this.limits.maxPerKey})` };
    const conn = new LiveConnection(kind, owner, principal.keyId, this, onEnd);
    this.open.add(conn);
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
    this.slots.give(conn.owner);
    this.changed();
  }

  private changed(): void {
    if (!this.onChange) return;
    const counts: Record<LiveKind, number> = { sse: 0, 'graphql-sse': 0, 'graphql-ws': 0 };
    for (const c of this.open) counts[c.kind]++;
    this.onChange(counts);
  }
}
