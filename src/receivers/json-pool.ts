import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SpyglassError } from '../errors.ts';
import type { ParsedParts } from './json-parts.ts';

/**
 * Worker threads that parse large JSON request bodies (over LARGE_JSON_BYTES) off the event loop
 * (issue 25: one 7 MB body was a 35-50 ms JSON.parse that every other tenant's request waited
 * behind). Threads start with the first large body and stay; `close` (the app's onClose) ends
 * them. Bodies wait for a thread in turns between tenants, one body per tenant per round, so one
 * tenant's queue of large bodies does not hold another's.
 */
export const LARGE_JSON_BYTES = 1024 * 1024;

interface Task {
  id: number;
  body: ArrayBuffer;
  resolve: (r: ParsedParts) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  task: Task | undefined;
}

// Built, the thread runs json-worker.js. From the sources (tsx, vitest) it runs json-worker.ts
// through tsx's loader, registered inside the thread: Node 20 does not apply `--import tsx` to a
// thread's entry module.
const SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(SOURCE ? './json-worker.ts' : './json-worker.js', import.meta.url);

function startThread(): Worker {
  if (!SOURCE) return new Worker(WORKER_URL);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(entry, { eval: true });
}

export class JsonParsePool {
  private readonly threads: Thread[] = [];
  /** Per tenant, its bodies in order; tenants take turns in the map's (insertion) order. */
  private readonly waiting = new Map<string, Task[]>();
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly size = Math.max(1, Math.min(2, availableParallelism() - 1)),
    /** Told when a thread fails (its body was answered 503). */
    private readonly onThreadError: (err: Error) => void = () => undefined,
  ) {}

  /** Parses `body` (UTF-8 JSON) on a thread; the buffer is moved there, not copied. */
  parse(body: Buffer, tenant: string): Promise<ParsedParts> {
    if (this.closed) return Promise.reject(shuttingDown());
    // Fastify's body is a Buffer of its own memory (Buffer.concat); if ever not, move a copy.
    const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    const bytes = (
      whole ? body.buffer : body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)
    ) as ArrayBuffer;
    return new Promise((resolve, reject) => {
      const task = { id: this.nextId++, body: bytes, resolve, reject };
      const q = this.waiting.get(tenant);
      if (q) q.push(task);
      else this.waiting.set(tenant, [task]);
      this.dispatch();
    });
  }

  /** Ends the threads; bodies still waiting or in progress are refused (503, nothing was stored). */
  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.waiting.values()) for (const t of q) t.reject(shuttingDown());
    this.waiting.clear();
    await Promise.all(
      this.threads.splice(0).map(async (th) => {
        th.task?.reject(shuttingDown());
        await th.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.waiting.size > 0) {
      const thread = this.idleThread();
      if (!thread) return;
      const [tenant, q] = this.waiting.entries().next().value as [string, Task[]];
      const task = q.shift() as Task;
      // The tenant goes to the back of the round.
      this.waiting.delete(tenant);
      if (q.length > 0) this.waiting.set(tenant, q);
      thread.task = task;
      thread.worker.postMessage({ id: task.id, body: task.body }, [task.body]);
    }
  }

  private idleThread(): Thread | undefined {
    const idle = this.threads.find((th) => th.task === undefined);
    if (idle || this.threads.length >= this.size) return idle;
    const thread: Thread = { worker: this.spawn(), task: undefined };
    this.threads.push(thread);
    return thread;
  }

  private spawn(): Worker {
    const worker = startThread();
    // An idle pool never keeps the process alive; shutdown ends it through close().
    worker.unref();
    worker.on('message', (m: { id: number; result: ParsedParts }) => {
      const thread = this.threads.find((th) => th.worker === worker);
      if (!thread?.task || thread.task.id !== m.id) return;
      const task = thread.task;
      thread.task = undefined;
      task.resolve(m.result);
      this.dispatch();
    });
    // A thread that dies (out of memory, a bug) fails its body with a 503 and is replaced on demand.
    const lost = (err?: Error) => {
      if (err) this.onThreadError(err);
      const i = this.threads.findIndex((th) => th.worker === worker);
      if (i < 0) return;
      const [thread] = this.threads.splice(i, 1);
      thread?.task?.reject(
        new SpyglassError('unavailable', 'the body parser restarted; retry the request', {
          retryAfter: 1,
        }),
      );
      if (err) worker.terminate().catch(() => undefined);
      if (!this.closed) this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', () => lost());
    return worker;
  }
}

function shuttingDown(): SpyglassError {
  return new SpyglassError('unavailable', 'server shutting down', { retryAfter: 1 });
}
