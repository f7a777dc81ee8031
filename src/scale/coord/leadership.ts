import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Db } from '../../store/db.ts';
import { recordLeaderToken, storedLeaderToken } from '../../store/leader-repo.ts';
import {
  acquireLease,
  leaseKeys,
  raiseToken,
  releaseLease,
  renewLease,
  type LeaseKeys,
} from './lease.ts';

export interface LeadershipOptions {
  redis: Redis;
  db: Db;
  /** cluster.name: the Redis key prefix and the fence row. */
  clusterName: string;
  instanceId: string;
  leaseMs: number;
  logger: Logger;
  /** Called once this instance leads (the fence recorded its token). */
  onLead: (token: number) => void | Promise<void>;
  /** Called once it no longer leads; awaited before it may lead again. */
  onStepDown: (reason: string) => void | Promise<void>;
}

/**
 * Leadership of the cluster's background jobs: a Redis lease (lease.ts) fenced in the database
 * (leader-repo.ts). Every leaseMs/3 the leader renews and records its token; a follower tries to
 * acquire, and when the lease is held it tries again the moment that lease would expire, so a dead
 * leader is replaced within one lease period. Redis down: the leader keeps its role as long as the
 * fence passes (nobody can take a newer token meanwhile); followers wait.
 */
export class Leadership {
  private token: number | null = null;
  private readonly keys: LeaseKeys;
  private readonly period: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private renewWarned = false;
  private fenceWarned = false;

  constructor(private readonly o: LeadershipOptions) {
    this.keys = leaseKeys(o.clusterName);
    this.period = Math.max(1, Math.floor(o.leaseMs / 3));
  }

  get leading(): boolean {
    return this.token !== null;
  }

  /** This instance's fencing token while it leads. */
  get currentToken(): number | null {
    return this.token;
  }

  /** Runs a round now, then keeps going until stop(). */
  start(): void {
    const loop = (delay: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running = this.tick().then(loop, () => loop(this.period));
      }, delay);
      this.timer.unref();
    };
    // The first round waits for the connection (commands fail fast while it is not up), briefly.
    this.running = whenReady(this.o.redis, this.period)
      .then(() => this.tick())
      .then(loop, () => loop(this.period));
  }

  /** One round: renew and fence-check as leader, try to acquire as follower. Resolves to the delay before the next. */
  async tick(): Promise<number> {
    if (this.stopped) return this.period;
    return this.token !== null ? this.renew(this.token) : this.acquire();
  }

  /** Stops the rounds; a leader stops its jobs and releases the lease so another takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    if (this.token === null) return;
    await this.stepDown('shutting down');
    await releaseLease(this.o.redis, this.keys, this.o.instanceId);
  }

  private async renew(token: number): Promise<number> {
    const { logger } = this.o;
    const r = await renewLease(this.o.redis, this.keys, this.o.instanceId, this.o.leaseMs);
    if (r.kind === 'lost') {
      await this.stepDown(`lease taken by ${r.holder}`);
      return 0;
    }
    if (r.kind === 'unavailable' && !this.renewWarned) {
      this.renewWarned = true;
      logger.warn(
        { token, err: r.error },
        `leader: cannot renew the lease (redis unavailable); keeping the background jobs while the fence in the database holds (token ${token})`,
      );
    } else if (r.kind === 'renewed' && this.renewWarned) {
      this.renewWarned = false;
      logger.info({ token }, `leader: lease renewed again (token ${token})`);
    }
    let passes: boolean;
    try {
      passes = await recordLeaderToken(this.o.db, this.o.clusterName, token, this.o.instanceId);
    } catch (err) {
      // Cannot tell: keep the role (the jobs need the database too) and check again next round.
      if (!this.fenceWarned)
        logger.warn(
          { err },
          'leader: cannot check the fence (database unavailable); keeping the role',
        );
      this.fenceWarned = true;
      return this.period;
    }
    this.fenceWarned = false;
    if (!passes) {
      const newer = await storedLeaderToken(this.o.db, this.o.clusterName).catch(() => null);
      await this.stepDown(`fenced: a newer leader holds token ${newer ?? '?'}`);
      return 0;
    }
    return this.period;
  }

  private async acquire(): Promise<number> {
    const { redis, db, clusterName, instanceId, logger } = this.o;
    const r = await acquireLease(redis, this.keys, instanceId, this.o.leaseMs);
    if (r.kind === 'unavailable') return this.period;
    // Try again the moment the holder's lease would run out (a renewal pushes that back).
    if (r.kind === 'held') return Math.min(this.period, Math.max(20, r.expiresInMs + 5));
    let passes: boolean;
    try {
      passes = await recordLeaderToken(db, clusterName, r.token, instanceId);
    } catch (err) {
      logger.warn(
        { err },
        'leader: acquired the lease but cannot record the fence (database unavailable); letting it go',
      );
      await releaseLease(redis, this.keys, instanceId);
      return this.period;
    }
    if (!passes) {
      const stored = await storedLeaderToken(db, clusterName);
      logger.warn(
        { token: r.token, stored },
        `leader: the token counter in Redis (${r.token}) is behind the database (${stored}), as after a Redis restart without persistence; raising it`,
      );
      await raiseToken(redis, this.keys, stored).catch(() => {});
      await releaseLease(redis, this.keys, instanceId);
      return 0;
    }
    if (this.stopped) {
      await releaseLease(redis, this.keys, instanceId);
      return this.period;
    }
    this.token = r.token;
    this.renewWarned = false;
    this.fenceWarned = false;
    logger.info(
      { token: r.token, instanceId },
      `leader: this instance runs the background jobs (token ${r.token})`,
    );
    await this.o.onLead(r.token);
    return this.period;
  }

  private async stepDown(reason: string): Promise<void> {
    const token = this.token;
    this.token = null;
    this.o.logger.info({ token, reason }, `leader: stepped down (${reason})`);
    await this.o.onStepDown(reason);
  }
}

function whenReady(redis: Redis, withinMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, withinMs);
    redis.once('ready', done);
  });
}
