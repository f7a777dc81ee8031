import type { Logger } from 'pino';
import { SpyglassError } from '../errors.ts';
import type { Span } from '../model/span.ts';
import { isTransient } from '../store/db.ts';

export interface WriterOptions {
  /** Commits one group in one transaction; must be all-or-nothing. */
  commit: (spans: Span[]) => Promise<void>;
  maxQueuedSpans: number;
  maxCommitSpans: number;
  /** How long a group keeps retrying while the database is unreachable before its requests get 503. */
  retryWindowMs?: number;
  logger?: Logger;
}

interface Pending {
  spans: Span[];
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Group commit: requests that arrive while a commit is in flight are written together in the next
 * one, so throughput does not depend on one commit per request. A request resolves only once its
 * spans are committed. The queue is bounded; when full, new requests get 503 with Retry-After.
 */
export class GroupCommitWriter {
  private queue: Pending[] = [];
  private queuedSpans = 0;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly opts: WriterOptions) {}

  get pendingSpans(): number {
    return this.queuedSpans;
  }

  write(spans: Span[]): Promise<void> {
    if (spans.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new SpyglassError('unavailable', 'shutting down', { retryAfter: 1 }));
    if (this.queuedSpans > 0 && this.queuedSpans + spans.length > this.opts.maxQueuedSpans) {
      return Promise.reject(new SpyglassError('overloaded', 'ingest queue is full, retry later', { retryAfter: 1 }));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ spans, resolve, reject });
      this.queuedSpans += spans.length;
      this.flushing ??= this.drain().finally(() => {
        this.flushing = null;
      });
    });
  }

  /** Stops taking writes and commits everything already queued. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      // Let the event loop read the requests that arrived meanwhile, so they join this group.
      // Without it an in-process database (PGlite) would commit one request per group.
      await new Promise((resolve) => setImmediate(resolve));
      const group = this.takeGroup();
      await this.commitGroup(group);
      for (const p of group) this.queuedSpans -= p.spans.length;
    }
  }

  /** Whole requests up to maxCommitSpans; one request is never split across transactions. */
  private takeGroup(): Pending[] {
    const group: Pending[] = [];
    let n = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0] as Pending;
      if (group.length > 0 && n + next.spans.length > this.opts.maxCommitSpans) break;
      group.push(next);
      n += next.spans.length;
      this.queue.shift();
    }
    return group;
  }

  private async commitGroup(group: Pending[]): Promise<void> {
    const spans = group.length === 1 ? (group[0] as Pending).spans : group.flatMap((p) => p.spans);
    const deadline = Date.now() + (this.opts.retryWindowMs ?? 15_000);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.opts.commit(spans);
        for (const p of group) p.resolve();
        return;
      } catch (err) {
        if (isTransient(err) && Date.now() < deadline) {
          this.opts.logger?.warn({ err: describe(err), attempt }, 'database unreachable, retrying group commit');
          await sleep(Math.min(100 * 2 ** attempt, 2000));
          continue;
        }
        if (isTransient(err)) {
          const out = new SpyglassError('unavailable', 'storage unavailable, retry later', { retryAfter: 5 });
          for (const p of group) p.reject(out);
          return;
        }
        if (group.length > 1) {
          // One request's bad data must not fail its neighbours: commit each on its own.
          for (const p of group) await this.commitGroup([p]);
          return;
        }
        this.opts.logger?.error({ err: describe(err) }, 'group commit failed');
        (group[0] as Pending).reject(new SpyglassError('unavailable', 'spans could not be stored', { retryAfter: 5 }));
        return;
      }
    }
  }
}

function describe(err: unknown): { message: string; code?: string } {
  const e = err as { message?: string; code?: string };
  return { message: e.message ?? String(err), code: e.code };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
