import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, type Sequenced } from '../../src/live/bus.ts';
import type { LiveEvent } from '../../src/model/live-event.ts';
import { decodeLiveEvents, encodeLiveEvents } from '../../src/scale/coord/live-codec.ts';
import { LiveRelay } from '../../src/scale/coord/live-relay.ts';
import { findRedisServer, startRedis, type RedisServer } from '../helpers/redis.ts';
import { spanNew } from '../live/span-new.ts';

/**
 * The bus carries domain events (src/model/live-event.ts); between instances they travel as one
 * JSON (src/scale/coord/live-codec.ts) with their Dates revived, so what another instance's bus
 * delivers equals what was published.
 */
const events: LiveEvent[] = [
  spanNew({
    spanId: 'relay-span',
    sessionId: 'relay-session',
    parentSpanId: 'relay-parent',
    startedAt: new Date('2026-11-26T10:00:00.123Z'),
    endedAt: new Date('2026-11-26T10:00:00.223Z'),
    startedAtMicros: 456,
    endedAtMicros: 789,
    error: 'boom',
    costUsd: 0.25,
    targetAgentName: 'helper',
    replayOf: null,
  }),
  {
    type: 'health:check',
    data: { serverName: 'files', status: 'down', latencyMs: null, projectId: 'default' },
  },
  {
    type: 'alert:fired',
    data: {
      id: randomUUID(),
      type: 'mcp_down',
      severity: 'critical',
      title: 'MCP server files is down',
      message: '3 consecutive checks failed.',
      projectId: 'default',
      serverName: 'files',
      agentName: null,
      sessionId: null,
      status: 'firing',
      firedAt: new Date('2026-11-26T10:00:01.000Z'),
      acknowledgedAt: null,
      resolvedAt: null,
      snoozedUntil: new Date('2026-11-26T11:00:00.000Z'),
      fields: { consecutive_failures: 3 },
      delivery: 'pending',
      deliveryError: null,
    },
  },
];

describe('the live relay codec', () => {
  it('revives every Date, keeps microseconds, and leaves a place for an unknown event', () => {
    const copy = decodeLiveEvents(encodeLiveEvents(events));
    expect(copy).toEqual(events);
    expect((copy[0] as { data: { startedAt: unknown } }).data.startedAt).toBeInstanceOf(Date);
    const mixed = JSON.stringify([{ type: 'span:future', data: {} }, events[1]]);
    expect(decodeLiveEvents(mixed)).toEqual([null, events[1]]);
  });
});

describe.runIf(findRedisServer() !== null)('events relayed through Redis', () => {
  let redis: RedisServer;
  const relays: LiveRelay[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(relays.map((r) => r.close()));
    await redis?.stop();
  });

  function instance(cluster: string): { bus: EventBus; relay: LiveRelay } {
    const bus = new EventBus();
    const relay = new LiveRelay(bus, {
      redisUrl: redis.url,
      cluster,
      keep: 100,
      history: 100,
      logger: pino({ level: 'silent' }),
      onHistory: () => undefined,
      localClients: () => 1,
      instanceId: randomUUID(),
    });
    relays.push(relay);
    bus.useRelay(relay);
    return { bus, relay };
  }

  it('arrive on another instance equal to what was published, with the same ids', async () => {
    const cluster = `codec-${randomUUID()}`;
    const a = instance(cluster);
    const b = instance(cluster);
    await expect.poll(() => a.relay.active && b.relay.active, { timeout: 10_000 }).toBe(true);
    const onA: Sequenced[] = [];
    const onB: Sequenced[] = [];
    a.bus.subscribeBatches({ type: '*', projectId: null }, (items) => onA.push(...items));
    b.bus.subscribeBatches({ type: '*', projectId: null }, (items) => onB.push(...items));
    a.bus.publishBatch(events);
    await expect.poll(() => onB.length, { timeout: 10_000 }).toBe(events.length);
    expect(onB.map((i) => i.event)).toEqual(events);
    await expect.poll(() => onA.length, { timeout: 10_000 }).toBe(events.length);
    expect(onB.map((i) => i.id)).toEqual(onA.map((i) => i.id));
    expect(onB.every((i) => typeof i.id === 'number')).toBe(true);
  });
});
