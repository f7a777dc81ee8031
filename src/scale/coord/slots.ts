import type { Redis } from 'ioredis';
import { closeRedis } from './redis.ts';

/**
 * Counted places shared by every worker and instance of a cluster: live connections per key and
 * open sockets per client address (docs/scaling.md). Without a cap shared this way each worker
 * would allow the whole cap, so N workers allowed N times it.
 *
 * In Redis, each scope is a hash `<cluster>:slots:<scope>` of instance → places it holds, and each
 * instance has a lease `<cluster>:slots:alive:<instance>` it renews every lease/3, re-stating its
 * counts at the same time. A take counts only instances whose lease is alive and removes the
 * others' entries, so a killed worker's places come back one lease after its last renewal. Every
 * operation is one Lua script (check-and-take is atomic).
 *
 * Without Redis (one process), or while Redis cannot be asked (down, or no answer within a second),
 * each worker allows its share: floor(cap / workers), at least 1.
 */
export interface SlotsOptions {
  /** The cluster's name: the prefix of every key. */
  prefix: string;
  instanceId: string;
  /** A dead instance's places are free again this long after its last renewal. */
  leaseMs: number;
  /** Worker processes on this host (SPYGLASS_WORKERS): the local share is the cap divided by it. */
  workers: number;
}

/** A new connection waits at most this long for Redis before its worker decides alone. */
const ASK_TIMEOUT_MS = 1000;
/** Takes right after start wait at most this long for the first connection (its timeout is 2 s). */
const FIRST_CONNECT_WAIT_MS = 2500;

// KEYS[1] the scope's hash. ARGV: instance, cap, lease-key prefix, lease ms.
const TAKE = `
redis.call('SET', ARGV[3] .. ARGV[1], '1', 'PX', ARGV[4])
local fields = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #fields, 2 do
  if fields[i] == ARGV[1] or redis.call('EXISTS', ARGV[3] .. fields[i]) == 1 then
    total = total + tonumber(fields[i + 1])
  else
    redis.call('HDEL', KEYS[1], fields[i])
  end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 2)
return 1`;

const GIVE = `
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1`;

export class SharedSlots {
  /** Places this instance holds per scope, takes in flight included. */
  private readonly held = new Map<string, number>();
  /** Scopes this instance stopped holding since the last renewal: their entries are removed then. */
  private readonly emptied = new Set<string>();
  private readonly timer: NodeJS.Timeout | null = null;
  /** Renewals sent so far: a take refused after one was counted there, and is uncounted. */
  private renewals = 0;

  constructor(
    private readonly redis: Redis | undefined,
    private readonly opts: SlotsOptions,
  ) {
    if (!redis) return;
    this.timer = setInterval(() => this.renew(), Math.max(100, Math.floor(opts.leaseMs / 3)));
    this.timer.unref();
    redis.on('ready', () => this.renew());
    // Settles once the first connection attempt is over, whichever way it went.
    this.firstAttempt =
      redis.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const done = () => {
              redis.off('ready', done);
              redis.off('error', done);
              redis.off('end', done);
              resolve();
            };
            redis.once('ready', done);
            redis.once('error', done);
            redis.once('end', done);
          });
    void this.firstAttempt.then(() => (this.firstSettled = true));
  }

  /** Settled once the connection's first attempt succeeded or failed. */
  private readonly firstAttempt: Promise<void> = Promise.resolve();

  /**
   * A worker that has just started is still connecting: asking Redis then would fail at once (no
   * offline queue) and its take would be decided alone while the other workers ask Redis, which
   * together can admit more than the cap. So the first takes wait for that first attempt (at most
   * FIRST_CONNECT_WAIT_MS); Redis down at start fails the attempt quickly (refused).
   */
  private async firstConnect(): Promise<void> {
    if (this.firstSettled) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.firstAttempt,
      new Promise<void>((r) => (timer = setTimeout(r, FIRST_CONNECT_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  private firstSettled = false;

  /** What one worker allows of `max` on its own. */
  localShare(max: number): number {
    return Math.max(1, Math.floor(max / this.opts.workers));
  }

  /** One place in `scope` if fewer than `max` are held cluster-wide; never throws. */
  async take(scope: string, max: number): Promise<boolean> {
    // Before counting the take as held: a renewal (one goes out when the connection becomes
    // ready) must not state it before Redis was asked, or the ask would count it twice.
    if (this.redis && !this.firstSettled) await this.firstConnect();
    const mine = this.held.get(scope) ?? 0;
    if (mine >= max) return false;
    this.held.set(scope, mine + 1);
    const renewals = this.renewals;
    let ok = mine < this.localShare(max);
    if (this.redis) {
      let timer: NodeJS.Timeout | undefined;
      // A timer that fires after this process's own event loop was blocked must not beat an
      // answer already waiting on the socket: setImmediate runs after the loop has read it.
      const late = new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () => setImmediate(() => reject(new Error('redis did not answer'))),
            ASK_TIMEOUT_MS,
          )),
      );
      try {
        const answer = this.redis.eval(
          TAKE,
          1,
          this.key(scope),
          this.opts.instanceId,
          String(max),
          this.key('alive:'),
          String(this.opts.leaseMs),
        );
        answer.catch(() => undefined); // it may lose the race below
        ok = (await Promise.race([answer, late])) === 1;
      } catch {
        // Redis away or stalled: the local share (see the class comment). A take that still lands
        // late is corrected by the next renewal, which states this instance's true counts.
      } finally {
        clearTimeout(timer);
      }
    }
    if (!ok) {
      this.drop(scope);
      // A renewal sent meanwhile stated this take as held.
      if (renewals !== this.renewals) this.send(GIVE, scope);
    }
    return ok;
  }

  /** Gives back a place taken with take(). */
  give(scope: string): void {
    this.drop(scope);
    this.send(GIVE, scope);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (!this.redis) return;
    if (this.redis.status === 'ready') {
      const p = this.redis.pipeline().del(this.key(`alive:${this.opts.instanceId}`));
      for (const scope of this.held.keys()) p.hdel(this.key(scope), this.opts.instanceId);
      await p.exec().catch(() => undefined);
    }
    await closeRedis(this.redis);
  }

  private renew(): void {
    if (!this.redis || this.redis.status !== 'ready') return;
    this.renewals++;
    const { instanceId, leaseMs } = this.opts;
    const p = this.redis.pipeline().set(this.key(`alive:${instanceId}`), '1', 'PX', leaseMs);
    for (const [scope, n] of this.held)
      p.hset(this.key(scope), instanceId, n).pexpire(this.key(scope), leaseMs * 2);
    for (const scope of this.emptied)
      if (!this.held.has(scope)) p.hdel(this.key(scope), instanceId);
    this.emptied.clear();
    p.exec().catch(() => undefined);
  }

  private drop(scope: string): void {
    const left = (this.held.get(scope) ?? 1) - 1;
    if (left <= 0) {
      this.held.delete(scope);
      if (this.redis) this.emptied.add(scope);
    } else this.held.set(scope, left);
  }

  /** Fire and forget: a lost GIVE is corrected by the next renewal. */
  private send(script: string, scope: string): void {
    if (!this.redis || this.redis.status !== 'ready') return;
    this.redis.eval(script, 1, this.key(scope), this.opts.instanceId).catch(() => undefined);
  }

  private key(scope: string): string {
    return `${this.opts.prefix}:slots:${scope}`;
  }
}
