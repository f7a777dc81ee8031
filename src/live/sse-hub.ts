import type { ServerResponse } from 'node:http';
import type { EventBus, LiveEvent } from './bus.ts';

export interface SseOptions {
  maxClients: number;
  /** Events buffered per client while its socket is busy; the oldest is dropped beyond it. */
  clientBuffer: number;
  /** Events kept for replay after a reconnect with Last-Event-ID. */
  replay: number;
  keepaliveMs: number;
}

export const DEFAULT_SSE: SseOptions = { maxClients: 200, clientBuffer: 50, replay: 1000, keepaliveMs: 15_000 };

interface Sequenced {
  id: number;
  event: LiveEvent;
}

interface Client {
  res: ServerResponse;
  projectId: string | null;
  queue: Sequenced[];
  waitingForDrain: boolean;
  dropped: number;
}

/**
 * Server-Sent Events fan-out (spec §6.1, decisions §10). Memory stays bounded whatever the
 * clients do: at most `maxClients`, each with at most `clientBuffer` queued events, and nothing
 * more is written to a socket until it drains.
 */
export class SseHub {
  private clients = new Set<Client>();
  private ring: Sequenced[] = [];
  private nextId = 1;
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus, private readonly opts: SseOptions = DEFAULT_SSE, private readonly onCount?: (n: number) => void) {
    this.unsubscribe = bus.subscribe((event) => this.dispatch(event));
    this.timer = setInterval(() => this.keepalive(), opts.keepaliveMs);
    this.timer.unref();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Takes over the response. `lastEventId` replays what the ring still holds after it. */
  attach(res: ServerResponse, projectId: string | null, lastEventId: number | null): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
    });
    if (this.clients.size >= this.opts.maxClients) {
      res.end(`event: error\ndata: ${JSON.stringify({ detail: `too many live clients (max ${this.opts.maxClients})` })}\n\n`);
      return;
    }
    const client: Client = { res, projectId, queue: [], waitingForDrain: false, dropped: 0 };
    this.clients.add(client);
    this.onCount?.(this.clients.size);
    res.on('close', () => {
      this.clients.delete(client);
      this.onCount?.(this.clients.size);
    });
    res.on('drain', () => {
      client.waitingForDrain = false;
      this.flush(client);
    });
    res.write(`retry: 2000\n: connected\n\n`);
    if (lastEventId !== null) {
      for (const item of this.ring) if (item.id > lastEventId) this.enqueue(client, item);
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }

  private dispatch(event: LiveEvent): void {
    const item = { id: this.nextId++, event };
    this.ring.push(item);
    if (this.ring.length > this.opts.replay) this.ring.shift();
    for (const client of this.clients) this.enqueue(client, item);
  }

  private enqueue(client: Client, item: Sequenced): void {
    const project = item.event.data.project_id;
    if (client.projectId !== null && project !== undefined && project !== null && project !== client.projectId) return;
    client.queue.push(item);
    if (client.queue.length > this.opts.clientBuffer) {
      client.queue.shift();
      client.dropped++;
    }
    this.flush(client);
  }

  private flush(client: Client): void {
    while (!client.waitingForDrain && client.queue.length > 0) {
      const item = client.queue.shift() as Sequenced;
      const ok = client.res.write(`id: ${item.id}\nevent: ${item.event.type}\ndata: ${JSON.stringify(item.event.data)}\n\n`);
      if (!ok) client.waitingForDrain = true;
    }
  }

  private keepalive(): void {
    for (const client of this.clients) if (!client.waitingForDrain) client.res.write(': keepalive\n\n');
  }
}
