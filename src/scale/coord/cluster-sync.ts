import type { Logger } from 'pino';
import type { KeyService } from '../../auth/key-service.ts';
import type { ClusterConfig } from '../../config/types.ts';
import type { CostService } from '../../costs/cost-service.ts';
import type { EventBus } from '../../live/bus.ts';
import type { SseHub } from '../../live/sse-hub.ts';
import type { SettingsService } from '../../settings/settings-service.ts';
import { Invalidation, type InvalidationTopic } from './invalidation.ts';
import { LiveRelay } from './live-relay.ts';

/** The parts of one process that instances keep in step through Redis. */
export interface SyncedParts {
  bus: EventBus;
  live: SseHub;
  /** Live clients of this instance (every kind): events are relayed only while some instance has any. */
  liveClients: () => number;
  settings: SettingsService;
  costs: CostService;
  keys: KeyService;
  /** Forgets what this process remembers of a deleted project (names, known ids, prices, producers). */
  forgetProject: (id: string) => void;
}

export interface ClusterSync {
  /** Tells the other instances that `topic` changed here. */
  announce(topic: InvalidationTopic, projectId?: string | null): void;
  /** This instance's live clients changed (every kind together). */
  clientsChanged(total: number): void;
  close(): Promise<void>;
}

/** With Redis: live events through the cluster's stream, and cache invalidation (src/scale/coord/). */
export function startClusterSync(
  redisUrl: string,
  cluster: ClusterConfig,
  replay: number,
  logger: Logger,
  p: SyncedParts,
): ClusterSync {
  const relay = new LiveRelay(p.bus, {
    redisUrl,
    cluster: cluster.name,
    keep: cluster.liveStreamLength,
    history: replay,
    logger,
    onHistory: (items) => p.live.preload(items),
    localClients: p.liveClients,
    instanceId: cluster.instanceId,
  });
  p.bus.useRelay(relay);
  const invalidation = new Invalidation({
    redisUrl,
    cluster: cluster.name,
    instanceId: cluster.instanceId,
    logger,
    apply: async (topic, projectId) => {
      if (topic === 'listening') return relay.heard();
      if (topic === 'settings') await p.settings.load();
      else if (topic === 'pricing') await p.costs.load();
      else p.keys.forgetCached(); // revoked keys, or a deleted project's; their live streams end with the 1 s key check
      if (topic === 'project' && projectId !== null) p.forgetProject(projectId);
    },
    reloadAll: async () => {
      p.keys.forgetCached();
      await Promise.all([p.settings.load(), p.costs.load()]);
    },
  });
  const off = p.keys.onRevoked(() => invalidation.publish('keys'));
  let clients = 0;
  return {
    clientsChanged: (total) => {
      if (clients === 0 && total > 0) {
        relay.firstClient();
        invalidation.publish('listening');
      }
      clients = total;
    },
    announce: (topic, projectId = null) => invalidation.publish(topic, projectId),
    close: async () => {
      off();
      p.bus.useRelay(null);
      await Promise.all([relay.close(), invalidation.close()]);
    },
  };
}
