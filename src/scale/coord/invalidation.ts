import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { closeRedis, connectRedis } from './redis.ts';

/**
 * What another instance may have changed: instance settings, model pricing, API keys, a deleted
 * project; or `listening`: it got its first live client, so events must go through the stream.
 */
export type InvalidationTopic = 'settings' | 'pricing' | 'keys' | 'project' | 'listening';

const TOPICS: ReadonlySet<string> = new Set<InvalidationTopic>([
  'settings',
  'pricing',
  'keys',
  'project',
  'listening',
]);

export interface InvalidationOptions {
  redisUrl: string;
  /** cluster.name: the channel is `<name>:invalidate`. */
  cluster: string;
  /** cluster.instanceId: an instance ignores its own messages (it applied the change already). */
  instanceId: string;
  logger: Logger;
  /** Drops or reloads what `topic` covers (a project's, when given). */
  apply: (topic: InvalidationTopic, projectId: string | null) => Promise<void>;
  /** Reloads every cache: after an outage, when messages may have been missed. */
  reloadAll: () => Promise<void>;
}

/**
 * Cache invalidation across instances (docs/api.md#cache-invalidation-across-instances) over Redis pub/sub: each change made here is
 * published after it is stored, and every other instance applies it within a second. Messages sent
 * while Redis is away are lost, so an instance whose subscription comes back reloads everything,
 * and one that could not publish tells every instance to.
 */
export class Invalidation {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly channel: string;
  /** A publish failed: once Redis is back, every instance is told to reload everything. */
  private missed = false;
  private everReady = false;

  constructor(private readonly o: InvalidationOptions) {
    const degraded =
      'changes made on other instances (settings, pricing, keys, deleted projects) reach this one when Redis is back, when everything is reloaded';
    this.channel = `${o.cluster}:invalidate`;
    this.pub = connectRedis(o.redisUrl, 'cache invalidation', o.logger, degraded);
    this.sub = connectRedis(o.redisUrl, 'cache invalidation (subscriber)', o.logger, degraded, {
      autoResubscribe: false,
    });
    let down = false;
    this.sub.on('error', () => (down = true));
    this.sub.on('ready', () => {
      this.sub.subscribe(this.channel).catch(() => undefined); // a failure drops the connection, and the next ready retries
      if (down) {
        down = false;
        this.run(() => o.reloadAll(), 'reload after a Redis outage');
      }
    });
    this.sub.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
    this.pub.on('ready', () => {
      this.everReady = true;
      if (!this.missed) return;
      this.missed = false;
      this.send({ topic: 'all', projectId: null });
    });
  }

  /** Tells the other instances; never waits and never fails the change (that is already stored). */
  publish(topic: InvalidationTopic, projectId: string | null = null): void {
    this.send({ topic, projectId });
  }

  async close(): Promise<void> {
    // A change made before the first connection was up (a short CLI command) is still announced,
    // as a reload request, if Redis answers within its connect timeout.
    if (this.missed && !this.everReady) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        this.pub.once('ready', () => {
          clearTimeout(timer);
          setImmediate(resolve);
        });
      });
    }
    await Promise.all([closeRedis(this.pub), closeRedis(this.sub)]);
  }

  private send(msg: { topic: InvalidationTopic | 'all'; projectId: string | null }): void {
    if (this.pub.status !== 'ready') {
      this.missed = true;
      return;
    }
    this.pub
      .publish(this.channel, JSON.stringify({ ...msg, from: this.o.instanceId }))
      .catch(() => (this.missed = true));
  }

  private receive(text: string): void {
    let msg: { topic?: unknown; projectId?: unknown; from?: unknown };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (msg.from === this.o.instanceId) return;
    const projectId = typeof msg.projectId === 'string' ? msg.projectId : null;
    if (msg.topic === 'all')
      this.run(() => this.o.reloadAll(), 'reload requested by another instance');
    else if (typeof msg.topic === 'string' && TOPICS.has(msg.topic))
      this.run(
        () => this.o.apply(msg.topic as InvalidationTopic, projectId),
        `invalidation of ${msg.topic}`,
      );
  }

  private run(fn: () => Promise<void>, what: string): void {
    fn().catch((err: unknown) =>
      this.o.logger.warn(
        { err: (err as Error).message },
        `${what} failed: cached values may be stale until the next change`,
      ),
    );
  }
}
