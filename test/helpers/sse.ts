import { request, type IncomingMessage } from 'node:http';

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** A raw SSE client over node:http, so a test controls reading (pause) and sees comments. */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  res!: IncomingMessage;
  private buffer = '';
  private waiters: (() => void)[] = [];

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        client.res = res;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => client.feed(chunk));
        res.on('end', () => client.notify());
        resolve(client);
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Resolves once `predicate` holds, or rejects after `ms`. */
  async waitFor(predicate: () => boolean, ms = 2000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for SSE events');
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  get ended(): boolean {
    return this.res.readableEnded;
  }

  close(): void {
    this.res.destroy();
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let sep: number;
    while ((sep = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, sep);
      this.buffer = this.buffer.slice(sep + 2);
      const ev: SseEvent = { event: 'message', data: '' };
      let hasData = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) ev.id = line.slice(4);
        else if (line.startsWith('event: ')) ev.event = line.slice(7);
        else if (line.startsWith('data: ')) {
          ev.data += line.slice(6);
          hasData = true;
        }
      }
      if (hasData) this.events.push(ev);
    }
    this.notify();
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
