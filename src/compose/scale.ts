import {
  startClusterSync,
  type ClusterSync,
  type SyncedParts,
} from '../scale/coord/cluster-sync.ts';
import type { KeyService } from '../auth/key-service.ts';
import { Invalidation } from '../scale/coord/invalidation.ts';
import { connectRedis } from '../scale/coord/redis.ts';
import { Limiter } from '../scale/limits/limiter.ts';
import { DEFAULT_SSE } from '../live/sse-hub.ts';
import type { Announce, Base } from './core.ts';

/**
 * What several workers and instances share through Redis (docs/scaling.md): request counters, and
 * the cluster sync (live events through the stream, cache invalidation). Without
 * `SPYGLASS_REDIS_URL` the limiter counts in memory and there is no sync.
 */
export interface Scale {
  /** Shared request counters for gRPC, WebSocket upgrades and pre-auth checks. */
  limiter: Limiter;
  /** Announces a change to the other instances once the sync runs (before: nothing to tell). */
  announce: Announce;
  /** This instance's live clients changed (every kind together). */
  clientsChanged(total: number): void;
  /** Starts the cluster sync over the parts it keeps in step (with Redis only). */
  startSync(parts: SyncedParts): void;
  close(): Promise<void>;
}

export function createScale({ config, logger }: Base): Scale {
  let sync: ClusterSync | null = null;
  const limiter = new Limiter(
    config.redisUrl
      ? connectRedis(
          config.redisUrl,
          'rate limits (shared counters)',
          logger,
          'each instance counts on its own',
        )
      : undefined,
    config.cluster.name,
  );
  return {
    limiter,
    announce: (topic, projectId) => sync?.announce(topic, projectId),
    clientsChanged: (total) => sync?.clientsChanged(total),
    startSync: (parts) => {
      if (config.redisUrl)
        sync = startClusterSync(config.redisUrl, config.cluster, DEFAULT_SSE.replay, logger, parts);
    },
    close: async () => {
      await limiter.close();
      await sync?.close();
    },
  };
}

/**
 * For a short command that may revoke keys (the CLI's `api-key revoke`): with Redis, announces each
 * revocation to the running instances as the cluster sync does, and applies nothing it hears.
 * Invalidation.close() still sends a change made before the first connection was up.
 */
export function announceRevocations(
  { config, logger }: Base,
  keys: KeyService,
): { close(): Promise<void> } {
  if (!config.redisUrl) return { close: async () => {} };
  const invalidation = new Invalidation({
    redisUrl: config.redisUrl,
    cluster: config.cluster.name,
    instanceId: config.cluster.instanceId,
    logger,
    apply: async () => {},
    reloadAll: async () => {},
  });
  const off = keys.onRevoked(() => invalidation.publish('keys'));
  return {
    close: async () => {
      off();
      await invalidation.close();
    },
  };
}
