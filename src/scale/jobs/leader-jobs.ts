import type { Logger } from 'pino';
import type { Config } from '../../config/types.ts';
import { closeRedis, connectRedis } from '../coord/redis.ts';
import { Leadership } from '../coord/leadership.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { Db } from '../../store/db.ts';

export interface Job {
  stop(): Promise<void>;
}

export interface LeaderJobsOptions {
  config: Config;
  db: Db;
  logger: Logger;
  metrics: Metrics;
  /** Starts the job set (a fresh start each time this instance becomes leader). */
  start: () => Job[];
}

/**
 * Runs the cluster-wide background jobs (monitor, retention, detectors, evaluators) on one instance:
 * without Redis this one is always the leader; with Redis, while it holds the leader lease
 * (src/scale/coord/leadership.ts). stop() ends the jobs and, on the leader, releases the lease.
 */
export function startLeaderJobs(o: LeaderJobsOptions): Job {
  let jobs: Job[] | null = null;
  const begin = () => {
    jobs = o.start();
    o.metrics.leader.set(1);
  };
  const end = async () => {
    o.metrics.leader.set(0);
    const running = jobs ?? [];
    jobs = null;
    // All at once: each stop() aborts its job's pass before any is waited for.
    await Promise.all(running.map((job) => job.stop()));
  };
  if (!o.config.redisUrl) {
    begin();
    return { stop: end };
  }
  o.metrics.leader.set(0);
  const redis = connectRedis(
    o.config.redisUrl,
    'leader lease',
    o.logger,
    'the leader keeps the background jobs while its fence in the database holds; other instances wait',
  );
  const leadership = new Leadership({
    redis,
    db: o.db,
    clusterName: o.config.cluster.name,
    instanceId: o.config.cluster.instanceId,
    leaseMs: o.config.cluster.leaseSeconds * 1000,
    logger: o.logger,
    onLead: begin,
    onStepDown: end,
  });
  leadership.start();
  return {
    stop: async () => {
      await leadership.stop();
      await end();
      await closeRedis(redis);
    },
  };
}
