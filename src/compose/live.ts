import type { KeyService } from '../auth/key-service.ts';
import type { EventBus } from '../live/bus.ts';
import { DeliveryBudget } from '../live/delivery-share.ts';
import { DEFAULT_LIVE_LIMITS, LiveClients } from '../live/live-clients.ts';
import { endRevokedStreams } from '../live/revocation.ts';
import { DEFAULT_SSE, SseHub } from '../live/sse-hub.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { connectRedis } from '../scale/coord/redis.ts';
import { SharedSlots } from '../scale/coord/slots.ts';
import type { Base } from './core.ts';

/** Live events to clients (docs/api.md#live-clients-one-budget): SSE, GraphQL over SSE and WebSocket. */
export interface Live {
  live: SseHub;
  /** The app's share of the event loop for live delivery (SSE, GraphQL subscriptions, WebSocket frames). */
  delivery: DeliveryBudget;
  /** The one budget of live connections (SSE, GraphQL over SSE and WebSocket). */
  liveClients: LiveClients;
  /** Places counted across workers and instances (live clients per key, sockets per address). */
  slots: SharedSlots;
  /**
   * Stops the timers this capability runs by itself: the 1 s check that ends the streams of
   * revoked keys and, with Redis, the renewal of the shared places. The SSE hub is closed by
   * startServer first (`live.close()`), so streams end before in-flight requests are waited for.
   */
  close(): Promise<void>;
}

export function createLive(
  { config, logger }: Base,
  d: { bus: EventBus; metrics: Metrics; keys: KeyService; onClientsChanged: (n: number) => void },
): Live {
  const slots = new SharedSlots(
    config.redisUrl
      ? connectRedis(
          config.redisUrl,
          'shared caps (live clients per key, sockets per address)',
          logger,
          'each worker allows its share of the caps',
        )
      : undefined,
    {
      prefix: config.cluster.name,
      instanceId: config.cluster.instanceId,
      leaseMs: config.cluster.leaseSeconds * 1000,
      workers: config.workers,
    },
  );
  const liveClients = new LiveClients(
    { ...DEFAULT_LIVE_LIMITS, maxPerKey: config.live.maxClientsPerKey },
    (n) => {
      d.metrics.activeSse.set(n.sse + n['graphql-sse']);
      d.onClientsChanged(liveClients.count);
    },
    slots,
  );
  const revocation = endRevokedStreams(d.keys, liveClients, logger);
  const delivery = new DeliveryBudget(config.live.deliverySharePercent / 100);
  const live = new SseHub(d.bus, liveClients, delivery, {
    ...DEFAULT_SSE,
    keepaliveMs: config.live.keepaliveSeconds * 1000,
  });
  return {
    live,
    delivery,
    liveClients,
    slots,
    close: async () => {
      await revocation.stop();
      await slots.close();
    },
  };
}
