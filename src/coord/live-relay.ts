import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EventBus, LiveEvent, Relay, Sequenced } from '../live/bus.ts';
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
redis.call('XADD', KEYS[2], 'MINID', '~', math.max(0, n - tonumber(ARGV[3])), n .. '-0', 'e', ARGV[4])
return n`;

/** Commands in flight past which events are delivered here only (Redis too slow to keep up). */
const MAX_IN_FLIGHT = 64;
const BLOCK_MS = 2000;

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
}

/**
 * Live events through a Redis Stream (spec §8): every instance appends what it publishes (one
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

  constructor(private readonly bus: EventBus, private readonly o: LiveRelayOptions) {
    const degraded = 'live events reach only the clients of the instance that published them';
    this.writer = connectRedis(o.redisUrl, 'live events', o.logger, degraded);
    this.reader = connectRedis(o.redisUrl, 'live events (reader)', o.logger, degraded);
    this.reader.on('close', () => (this.cursor = null));
    this.stream = `${o.cluster}:live`;
    this.loop = this.read();
  }

  /** True while events published here go through the stream. */
  get active(): boolean {
    return this.cursor !== null && this.writer.status === 'ready' && !this.closed;
  }

  send(events: readonly LiveEvent[]): boolean {
    if (!this.active || this.inFlight >= MAX_IN_FLIGHT) return false;
    if (this.pending.length === 0) setImmediate(() => this.flush());
    for (const e of events) this.pending.push(e);
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
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
      .eval(APPEND, 2, `${this.stream}:id`, this.stream, events.length, this.bus.lastId, this.o.keep, JSON.stringify(events))
      .catch(() => this.bus.deliver(events.map((event) => ({ id: null, event })))) // not appended: at least this instance's clients get them
      .finally(() => this.inFlight--);
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
        const reply = (await this.reader.xread('COUNT', 1000, 'BLOCK', BLOCK_MS, 'STREAMS', this.stream, this.cursor)) as [string, [string, string[]][]][] | null;
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
        const page = (await this.reader.xrevrange(this.stream, before, '-', 'COUNT', 100)) as [string, string[]][];
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
    const [last] = (await this.reader.xrevrange(this.stream, '+', '-', 'COUNT', 1)) as [string, string[]][];
    return last?.[0] ?? '0-0';
  }
}

/** A stream entry `<last id>-0` with field `e` (the batch's events as JSON) as sequenced events. */
function toItems([entryId, fields]: [string, string[]]): Sequenced[] {
  const json = fields[fields.indexOf('e') + 1];
  if (json === undefined) return [];
  const events = JSON.parse(json) as LiveEvent[];
  const last = Number.parseInt(entryId, 10);
  return events.map((event, i) => ({ id: last - events.length + 1 + i, event }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
