import type { ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.ts';
import { toLiveEventJson } from '../model/live-event-json.ts';
import { RELAYED_TYPES, type EventBus, type Sequenced } from './bus.ts';
import type { DeliveryBudget } from './delivery-share.ts';
import { EventQueue } from './event-queue.ts';
import type { LiveClients, LiveConnection } from './live-clients.ts';

export interface SseOptions {
  /** Events kept for replay after a reconnect with Last-Event-ID. */
  replay: number;
  keepaliveMs: number;
}

export const DEFAULT_SSE: SseOptions = { replay: 1000, keepaliveMs: 15_000 };

interface Client {
  res: ServerResponse;
  projectId: string | null;
  queue: EventQueue;
  waitingForDrain: boolean;
  /** Passed over by the last round: its events wait in the 50-event buffer. */
  deferred: boolean;
  conn?: LiveConnection;
}

/**
 * Server-Sent Events fan-out (docs/api.md#live-events-sse). Each client takes a place in the shared
 * live budget and gets events already filtered by project from the bus. A frame (the domain event
 * mapped to the API's JSON) is built once per event, when a client first needs it, and written
 * after the publishing code has returned, one write per client and tick, of a chunk encoded once
 * for all the clients that are at the same place in the stream.
 */
export class SseHub {
  private readonly clients = new Set<Client>();
  private readonly dirty = new Set<Client>();
  private flushScheduled = false;
  private ring: Sequenced[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly bus: EventBus,
    private readonly budget: LiveClients,
    /** The app's live delivery budget (src/live/delivery-share.ts): rounds are charged to it. */
    private readonly delivery: DeliveryBudget,
    private readonly opts: SseOptions = DEFAULT_SSE,
  ) {
    this.unsubscribe = bus.subscribeBatches({ type: '*', projectId: null }, (items) =>
      this.remember(streamed(items)),
    );
    this.timer = setInterval(() => this.keepalive(), opts.keepaliveMs);
    this.timer.unref();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Takes over the response. `lastEventId` replays what the ring still holds after it. */
  async attach(
    res: ServerResponse,
    principal: Principal,
    projectId: string | null,
    lastEventId: number | null,
  ): Promise<void> {
    let gone = false;
    const onGone = () => (gone = true);
    res.once('close', onGone);
    const client: Client = {
      res,
      projectId,
      queue: new EventQueue(this.budget.limits.buffer),
      waitingForDrain: false,
      deferred: false,
    };
    let off = () => {};
    const conn = await this.budget.connect('sse', principal, (reason) => {
      this.detach(client, off);
      if (!res.writableEnded) res.end(errorFrame(reason));
    });
    res.off('close', onGone);
    // The client left while its place was being taken (a round trip to Redis).
    if (gone) {
      if (!('refused' in conn)) conn.release();
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
    });
    if ('refused' in conn) return void res.end(errorFrame(conn.refused));
    client.conn = conn;
    off = this.bus.subscribeBatches({ type: '*', projectId }, (items) =>
      this.enqueue(client, streamed(items)),
    );
    this.clients.add(client);
    res.on('close', () => {
      this.detach(client, off);
      conn.release();
    });
    res.on('drain', () => {
      client.waitingForDrain = false;
      this.flush(client);
    });
    res.write(`retry: 2000\n: connected\n\n`);
    if (lastEventId !== null) {
      const missed = this.ring
        .slice(-this.opts.replay)
        .filter((item) => item.id !== null && item.id > lastEventId && visible(item, projectId));
      this.enqueue(client, missed);
    }
  }

  /** Ends every stream (shutdown); each client is told why. */
  close(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    for (const c of [...this.clients]) c.conn?.end('server shutting down', 1001);
    this.clients.clear();
  }

  private detach(client: Client, off: () => void): void {
    off();
    this.clients.delete(client);
    this.dirty.delete(client);
  }

  /**
   * Fills the replay ring with events this process did not see (the cluster's recent events, read
   * from the relay at start), so a client reconnecting here with another instance's id gets them.
   */
  preload(items: readonly Sequenced[]): void {
    const oldest = this.ring[0]?.id ?? null;
    const older = items.filter((i) => i.id !== null && (oldest === null || i.id < oldest));
    this.ring = [...streamed(older), ...this.ring].slice(-this.opts.replay);
  }

  private remember(items: readonly Sequenced[]): void {
    // Events without an id (delivered here only while the relay was down) cannot be asked for again.
    for (const item of items) if (item.id !== null) this.ring.push(item);
    // Trimmed in steps so that keeping the ring costs O(1) per event.
    if (this.ring.length > 2 * this.opts.replay) this.ring = this.ring.slice(-this.opts.replay);
  }

  private enqueue(client: Client, items: readonly Sequenced[]): void {
    // A client passed over by the last round (delivery's share ran out) lags like one whose socket
    // is full: its events wait in the 50-event buffer.
    client.queue.push(items, client.waitingForDrain || client.deferred);
    this.dirty.add(client);
    this.scheduleRound();
  }

  private scheduleRound(after?: Promise<void>): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const round = () => {
      this.flushScheduled = false;
      // Clients that are caught up get the same events: the chunk is encoded once per round.
      const chunks = new Map<Sequenced, Map<string, Buffer>>();
      for (const c of this.dirty) {
        const wait = this.delivery.creditWait();
        if (wait) {
          for (const waiting of this.dirty) waiting.deferred = true;
          return this.scheduleRound(wait);
        }
        this.dirty.delete(c);
        c.deferred = false;
        this.delivery.timed(() => this.flush(c, chunks));
      }
    };
    if (after) void after.then(round);
    else setImmediate(round);
  }

  private flush(client: Client, chunks?: Map<Sequenced, Map<string, Buffer>>): void {
    if (client.waitingForDrain || client.queue.size === 0) return;
    const items: Sequenced[] = [];
    for (let item = client.queue.shift(); item; item = client.queue.shift()) items.push(item);
    // Every queue is a run of the same delivered sequence: the same project filter, first event
    // (the object, since events without an id have none to compare) and count mean the same events.
    const first = items[0] as Sequenced;
    const key = `${client.projectId ?? '*'}|${items.length}`;
    let byKey = chunks?.get(first);
    let chunk = byKey?.get(key);
    if (!chunk) {
      let text = '';
      for (const item of items) {
        item.sse ??= frame(item);
        text += item.sse;
      }
      chunk = Buffer.from(text);
      if (chunks) {
        if (!byKey) chunks.set(first, (byKey = new Map()));
        byKey.set(key, chunk);
      }
    }
    if (!client.res.write(chunk)) client.waitingForDrain = true;
  }

  private keepalive(): void {
    for (const client of this.clients)
      if (!client.waitingForDrain) client.res.write(': keepalive\n\n');
  }
}

function visible(item: Sequenced, projectId: string | null): boolean {
  const p = item.event.data.projectId;
  return projectId === null || p === undefined || p === projectId;
}

/** The event's SSE frame: the domain event mapped to the API's JSON (docs/api.md#live-events-sse). */
function frame(item: Sequenced): string {
  const id = item.id === null ? '' : `id: ${item.id}\n`;
  return `${id}event: ${item.event.type}\ndata: ${JSON.stringify(toLiveEventJson(item.event))}\n\n`;
}

function errorFrame(detail: string): string {
  return `event: error\ndata: ${JSON.stringify({ detail })}\n\n`;
}

/** The SSE event set of docs/api.md#live-events-sse; other bus events (security:scan) are internal. */
const SSE_EVENTS = RELAYED_TYPES;

function streamed(items: readonly Sequenced[]): readonly Sequenced[] {
  return items.every((i) => SSE_EVENTS.has(i.event.type))
    ? items
    : items.filter((i) => SSE_EVENTS.has(i.event.type));
}
