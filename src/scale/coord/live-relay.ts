import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EventBus, LiveEvent, Relay, Sequenced } from '../../live/bus.ts';
import { decodeLiveEvents, encodeLiveEvents } from './live-codec.ts';
import { closeRedis, connectRedis } from './redis.ts';

/**
 * Appends one batch: takes `count` ids from the cluster's counter and adds one stream entry whose
 * id is the batch's last event id, trimming entries older than the last `keep` events. A counter
 * found missing (Redis restarted without persistence, or the key evicted) starts above what this
 * instance has seen and above the stream's newest entry, so ids never go back.
 */
const APPEND = `
local count = tonumber(ARGV[1])
local n = redis.call('INCRBY', KEYS[1], count)
if n == count then
  local floor = tonumber(ARGV[2])
  local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
  if newest then floor = math.max(floor, tonumber(string.match(newest[1], '^(%d+)'))) end
  if n <= floor then
    n = floor + count
    redis.call('SET', KEYS[1], n)
  end
end
redis.call('XADD', KEYS[2], 'MINID', '~', math.max(0, n - tonumber(ARGV[3])), n .. '-0', 'd', ARGV[4])
return n`;

/** Commands in flight past which events are delivered here only (Redis too slow to keep up). */
const MAX_IN_FLIGHT = 64;
const BLOCK_MS = 2000;
/** How often an instance announces its live clients and reads whether any instance has some. */
const PRESENCE_EVERY_MS = 1000;
/** An announcement lasts this long unless renewed (an instance that died stops counting). */
const PRESENCE_TTL_MS = 5000;
/**
 * An instance keeps announcing this long after its last live client left, so a client that
 * reconnects (here or elsewhere) with Last-Event-ID finds every event it missed in the stream.
 */
const LINGER_MS = 60_000;

export interface LiveRelayOptions {
  redisUrl: string;
  /** cluster.name: the stream is `<name>:live`, its counter `<name>:live:id`. */
  cluster: string;
  /** cluster.liveStreamLength: events kept in the stream. */
  keep: number;
  /** Events read at start for the replay ring (the SSE replay length). */
  history: number;
  logger: Logger;
  /** Receives the history read at start (the SSE hub's replay ring), before any live event. */
  onHistory: (items: Sequenced[]) => void;
  /** This instance's live clients (SSE, GraphQL over SSE and WebSocket) right now. */
  localClients: () => number;
  /** This instance's name among the announcements of `<name>:live:clients`. */
  instanceId: string;
}

/**
 * Live events through a Redis Stream (docs/api.md#several-instances-spyglass_redis_url): every instance appends what it publishes (one
 * command per batch, after the publishing code has returned) and reads the stream on its own
 * connection, delivering every instance's events to its bus with the cluster's ids, in stream
 * order. While Redis is away, events are delivered here only, without ids.
 */
export class LiveRelay implements Relay {
  private readonly writer: Redis;
  private readonly reader: Redis;
  private readonly stream: string;
  private pending: LiveEvent[] = [];
  private inFlight = 0;
  /** The stream entry read last; null until (re)positioned after a connect. */
  private cursor: string | null = null;
  private historyLoaded = false;
  private closed = false;
  private readonly loop: Promise<void>;
  /** Whether some instance of the cluster has (or just had) live clients; true until first asked. */
  private clusterListening = true;
  private lastLocalClientAt = Number.NEGATIVE_INFINITY;
  private readonly presence: NodeJS.Timeout;

  constructor(
    private readonly bus: EventBus,
    private readonly o: LiveRelayOptions,
  ) {
    const degraded = 'live events reach only the clients of the instance that published them';
    this.writer = connectRedis(o.redisUrl, 'live events', o.logger, degraded);
    this.reader = connectRedis(o.redisUrl, 'live events (reader)', o.logger, degraded);
    this.reader.on('close', () => (this.cursor = null));
    this.stream = `${o.cluster}:live`;
    this.loop = this.read();
    this.presence = setInterval(() => void this.announce(), PRESENCE_EVERY_MS);
    this.presence.unref();
    void this.announce();
  }

  /** True while events published here go through the stream. */
  get active(): boolean {
    return this.cursor !== null && this.writer.status === 'ready' && !this.closed;
  }

  send(events: readonly LiveEvent[]): boolean {
    if (!this.active || this.inFlight >= MAX_IN_FLIGHT) return false;
    // Nobody anywhere to see them: appending and reading back every span would cost each instance
    // CPU per span for nothing. Delivered here without ids (no client here keeps a replay ring).
    if (!this.clusterListening && this.o.localClients() === 0) return false;
    if (this.pending.length === 0) setImmediate(() => this.flush());
    for (const e of events) this.pending.push(e);
    return true;
  }

  /** Another instance got its first live client (told through the invalidation channel). */
  heard(): void {
    this.clusterListening = true;
  }

  /** This instance got its first live client: announce it now rather than on the next round. */
  firstClient(): void {
    this.lastLocalClientAt = Date.now();
    void this.announce();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.presence);
    this.flush();
    await closeRedis(this.writer);
    this.reader.disconnect();
    await this.loop;
  }

  /** One command for everything published during the last turn: serialising happens here, off the ingest path. */
  private flush(): void {
    const events = this.pending;
    if (events.length === 0) return;
    this.pending = [];
    this.inFlight++;
    this.writer
      .eval(
        APPEND,
        2,
        `${this.stream}:id`,
        this.stream,
        events.length,
        this.bus.lastId,
        this.o.keep,
        encodeLiveEvents(events),
      )
      .catch(() => this.bus.deliver(events.map((event) => ({ id: null, event })))) // not appended: at least this instance's clients get them
      .finally(() => this.inFlight--);
  }

  /**
   * Announces this instance in `<name>:live:clients` (a sorted set scored by expiry) while it has
   * live clients or had some within LINGER_MS, and reads whether any announcement is current.
   */
  private async announce(): Promise<void> {
    if (this.closed || this.writer.status !== 'ready') return;
    const key = `${this.o.cluster}:live:clients`;
    const now = Date.now();
    if (this.o.localClients() > 0) this.lastLocalClientAt = now;
    try {
      const batch = this.writer.multi();
      if (now - this.lastLocalClientAt < LINGER_MS)
        batch.zadd(key, now + PRESENCE_TTL_MS, this.o.instanceId);
      else batch.zrem(key, this.o.instanceId);
      batch.zremrangebyscore(key, '-inf', now);
      batch.zcard(key);
      batch.pexpire(key, PRESENCE_TTL_MS * 2);
      const replies = await batch.exec();
      this.clusterListening = Number(replies?.[2]?.[1] ?? 1) > 0;
    } catch {
      this.clusterListening = true; // unknown: relay rather than risk losing events
    }
  }

  private async read(): Promise<void> {
    while (!this.closed) {
      try {
        if (this.reader.status !== 'ready') {
          await sleep(100);
          continue;
        }
        if (this.cursor === null) {
          this.cursor = await this.position();
          continue;
        }
        const reply = (await this.reader.xread(
          'COUNT',
          1000,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.stream,
          this.cursor,
        )) as [string, [string, string[]][]][] | null;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        this.cursor = entries.at(-1)?.[0] ?? this.cursor;
        this.bus.deliver(entries.flatMap(toItems));
      } catch {
        // The connection went away (its warning is logged once); start again from the newest entry.
        this.cursor = null;
        if (!this.closed) await sleep(100);
      }
    }
  }

  /**
   * Where to read from after a connect: the newest entry. The first time, the entries holding the
   * last `history` events go to the replay ring first.
   */
  private async position(): Promise<string> {
    if (!this.historyLoaded) {
      const items: Sequenced[] = [];
      let newest: string | null = null;
      let before = '+';
      while (items.length < this.o.history) {
        const page = (await this.reader.xrevrange(this.stream, before, '-', 'COUNT', 100)) as [
          string,
          string[],
        ][];
        for (const entry of page) {
          newest ??= entry[0];
          items.unshift(...toItems(entry));
        }
        const oldest = page.at(-1);
        if (page.length < 100 || !oldest) break;
        before = `(${oldest[0]}`;
      }
      this.historyLoaded = true;
      if (items.length > 0) this.o.onHistory(items.slice(-this.o.history));
      if (newest) return newest;
    }
    const [last] = (await this.reader.xrevrange(this.stream, '+', '-', 'COUNT', 1)) as [
      string,
      string[],
    ][];
    return last?.[0] ?? '0-0';
  }
}

/**
 * A stream entry `<last id>-0` with field `d` (the batch's domain events, live-codec.ts) as
 * sequenced events. An entry of an older version (field `e`, the SSE JSON) is skipped: the ids stay
 * in order, the events are not replayed.
 */
function toItems([entryId, fields]: [string, string[]]): Sequenced[] {
  const at = fields.indexOf('d');
  const json = at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
  if (json === undefined) return [];
  const events = decodeLiveEvents(json);
  const last = Number.parseInt(entryId, 10);
  const items: Sequenced[] = [];
  events.forEach((event, i) => event && items.push({ id: last - events.length + 1 + i, event }));
  return items;
}
