import type { Logger } from 'pino';
import { SpyglassError } from '../errors.ts';
import type { Span } from '../model/span.ts';
import { isTransient } from '../store/db.ts';
import { databaseReason } from '../store/store-error.ts';
import type { EarlyTransaction } from '../store/early-transaction.ts';
import { storedKey, type StoredSpans } from '../store/span-rows.ts';
import { CHUNK_SPANS, GroupSize } from './group-size.ts';

/** A request's spans as its commit takes them: the statement's JSON text, or COPY's rows in UTF-8. */
export type EncodedSpans = string | Uint8Array;

export interface WriterOptions {
  /**
   * Encodes one request's spans for commit, when the request arrives: a group's encoding is then
   * spread over its requests' own turns instead of filling one turn of the event loop.
   * `groupSpans` (default: the request's own): about how many spans the group it is committed in
   * will hold (at arrival, what the lane has waiting or committing, the request included), so the
   * form can match the group's.
   */
  encode: (spans: Span[], groupSpans?: number) => EncodedSpans;
  /**
   * At commit, a request's encoding in the form its group of `groupSpans` spans takes: `encoded`
   * itself when it already is, else the request encoded anew. A request encoded at arrival for a
   * smaller group than it joined is then encoded again alone, not the whole group with it.
   * Absent: `commit` takes the forms as they came.
   */
  recode?: (spans: Span[], encoded: EncodedSpans, groupSpans: number) => EncodedSpans;
  /**
   * Commits one group (its spans and each request's encoding) in one transaction; all-or-nothing.
   * Says which spans were new. `early`: the transaction open() began for this group, to commit in
   * (or discard).
   */
  commit: (
    spans: Span[],
    encoded: EncodedSpans[],
    early?: EarlyTransaction,
  ) => Promise<StoredSpans>;
  /**
   * Begins the next group's transaction before the group is taken (PostgreSQL): the group is
   * taken once its BEGIN is answered, holding what arrived meanwhile, and the BEGIN's round trip
   * is off the commit's path. Absent: the group is taken on the next turn of the event loop.
   */
  open?: () => EarlyTransaction;
  maxQueuedSpans: number;
  maxCommitSpans: number;
  /** How long a group keeps retrying while the database is unreachable before its requests get 503. */
  retryWindowMs?: number;
  logger?: Logger;
}

interface Pending {
  /** Whose request this is (its project): the queue is shared fairly between them. */
  tenant: string;
  /** Start tag of start-time fair queueing: where the request stands in its tenant's share. */
  start: number;
  spans: Span[];
  /** null: a chunk of a large request, encoded when its group is committed. */
  encoded: EncodedSpans | null;
  /** With how many of the request's spans were newly stored (the rest were already there). */
  resolve: (stored: number) => void;
  reject: (err: Error) => void;
}

/**
 * A commit that failed for a reason retrying cannot fix. Validation should have refused such data
 * before the writer, so this is a bug: answered as an internal error (500, never 503: a retry would
 * fail the same way), and logged with the database's error code and message and the batch size,
 * never its parameters.
 */
export class CommitError extends Error {
  constructor(
    readonly pgCode: string | undefined,
    readonly spans: number,
  ) {
    super('spans could not be stored');
    this.name = 'CommitError';
  }
}

/**
 * Group commit: requests that arrive while a commit is in flight are written together in the next
 * one, so throughput does not depend on one commit per request. A request resolves only once its
 * spans are committed. The queue is bounded; when full, new requests get 503 with Retry-After.
 *
 * The queue is shared fairly between tenants (projects) by spans, with start-time fair queueing:
 * each request gets a start tag, the later of the writer's virtual time and the end of its
 * tenant's previous request (start + spans), and groups are formed from the lowest tags. A tenant
 * with a backlog of 10,000-span batches therefore queues behind itself: another tenant's request
 * goes into the next group, waiting for at most one request of each busier tenant, not their
 * whole backlog. Within a tenant, requests stay in arrival order.
 */
export class GroupCommitWriter {
  /** Per tenant, its requests in arrival order (and so in start-tag order). */
  private readonly queues = new Map<string, Pending[]>();
  /** The end tag of each tenant's latest request, while it is ahead of the virtual time. */
  private readonly finish = new Map<string, number>();
  /** The start tag of the request last taken into a group. */
  private virtualTime = 0;
  private queuedSpans = 0;
  private flushing: Promise<void> | null = null;
  private closed = false;
  /**
   * Spans in the last group committed: what the next group will likely hold. Right after a
   * commit the queue is empty, so what is waiting alone said "small group" to the first requests
   * of every group, and at batch 25 each group's first requests were encoded for the statement and
   * then again, with the whole group, for COPY (docs/benchmarks.md, batch 25's server CPU).
   */
  private lastGroupSpans = 0;
  private readonly groupSize: GroupSize;

  constructor(private readonly opts: WriterOptions) {
    this.groupSize = new GroupSize(opts.maxCommitSpans);
  }

  get pendingSpans(): number {
    return this.queuedSpans;
  }

  /**
   * Resolves, once committed, with how many of `spans` were new (not stored before). `tenant`
   * (default: the first span's project) is whose share of the queue the request takes.
   */
  write(spans: Span[], tenant: string = spans[0]?.projectId ?? ''): Promise<number> {
    if (spans.length === 0) return Promise.resolve(0);
    if (this.closed)
      return Promise.reject(new SpyglassError('unavailable', 'shutting down', { retryAfter: 1 }));
    if (this.queuedSpans > 0 && this.queuedSpans + spans.length > this.opts.maxQueuedSpans) {
      return Promise.reject(
        new SpyglassError('overloaded', 'ingest queue is full, retry later', { retryAfter: 1 }),
      );
    }
    this.groupSize.seen(tenant);
    if (spans.length <= CHUNK_SPANS) return this.writeChunk(spans, tenant);
    // Chunks, so that groups can be small while tenants share the writer (see GroupSize). The
    // request is answered once every chunk is committed; if one fails the request fails, and its
    // retry is safe (spans are stored once per id, rollups count only newly stored spans).
    const chunks: Promise<number>[] = [];
    // Their encoding waits for their group: a 10,000-span request encoded at once was 50-100 ms
    // in one piece of the event loop (issue 25), a group's chunks are a few ms.
    for (let i = 0; i < spans.length; i += CHUNK_SPANS)
      chunks.push(this.writeChunk(spans.slice(i, i + CHUNK_SPANS), tenant, false));
    return Promise.allSettled(chunks).then((settled) => {
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.reduce((a, r) => a + (r as PromiseFulfilledResult<number>).value, 0);
    });
  }

  private writeChunk(spans: Span[], tenant: string, encodeNow = true): Promise<number> {
    let encoded: EncodedSpans | null = null;
    try {
      if (encodeNow)
        encoded = this.opts.encode(
          spans,
          Math.max(this.queuedSpans + spans.length, this.lastGroupSpans),
        );
    } catch (err) {
      // Rejected, not thrown: a caller's cleanup (the lanes' session holds) runs either way.
      return Promise.reject(err as Error);
    }
    return new Promise<number>((resolve, reject) => {
      this.enqueue({ tenant, start: 0, spans, encoded, resolve, reject });
      this.flushing ??= this.drain().finally(() => {
        this.flushing = null;
      });
    });
  }

  /** The most spans a group of this writer takes now (smaller while tenants share it). */
  get groupCap(): number {
    return this.groupSize.cap();
  }

  /** Stops taking writes and commits everything already queued. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
  }

  private enqueue(p: Pending): void {
    p.start = Math.max(this.virtualTime, this.finish.get(p.tenant) ?? 0);
    this.finish.set(p.tenant, p.start + p.spans.length);
    const q = this.queues.get(p.tenant);
    if (q) q.push(p);
    else this.queues.set(p.tenant, [p]);
    this.queuedSpans += p.spans.length;
  }

  private async drain(): Promise<void> {
    while (this.queues.size > 0) {
      // Let the event loop read the requests that arrived meanwhile, so they join this group.
      // Without it an in-process database (PGlite) would commit one request per group. With an
      // early transaction, until its BEGIN is answered (at least that turn).
      const early = this.opts.open?.();
      if (early) await early.ready;
      else await new Promise((resolve) => setImmediate(resolve));
      const group = this.takeGroup();
      await this.commitGroup(group, early);
      for (const p of group) this.queuedSpans -= p.spans.length;
    }
  }

  /**
   * Whole chunks up to the group size (GroupSize), lowest start tag first. The group ends at the
   * first chunk that does not fit, so a small request is never held back for a large one and a
   * large one never jumps the queue, or at a large request's chunk of a tenant not in the group.
   */
  private takeGroup(): Pending[] {
    const group: Pending[] = [];
    const cap = this.groupSize.cap();
    let n = 0;
    for (;;) {
      const next = this.lowestHead();
      if (!next || (group.length > 0 && n + next.spans.length > cap)) break;
      // A large request's chunk does not join another tenant's group: that group commits alone
      // and small, and its tenant's requests are answered a commit sooner (issue 25).
      if (group.length > 0 && next.encoded === null && !group.some((p) => p.tenant === next.tenant))
        break;
      const q = this.queues.get(next.tenant) as Pending[];
      q.shift();
      if (q.length === 0) this.queues.delete(next.tenant);
      this.virtualTime = Math.max(this.virtualTime, next.start);
      group.push(next);
      n += next.spans.length;
    }
    this.forgetIdle();
    return group;
  }

  /** The queued request with the lowest start tag (the earliest tenant on a tie: Map order). */
  private lowestHead(): Pending | undefined {
    let best: Pending | undefined;
    for (const q of this.queues.values()) {
      const head = q[0] as Pending;
      if (!best || head.start < best.start) best = head;
    }
    return best;
  }

  /** Tenants with nothing queued whose share is used up to the virtual time have nothing to remember. */
  private forgetIdle(): void {
    if (this.finish.size <= this.queues.size + 64) return;
    for (const [tenant, end] of this.finish)
      if (end <= this.virtualTime && !this.queues.has(tenant)) this.finish.delete(tenant);
  }

  private async commitGroup(all: Pending[], early?: EarlyTransaction): Promise<void> {
    const group: Pending[] = [];
    const size = all.reduce((n, p) => n + p.spans.length, 0);
    for (const p of all) {
      try {
        p.encoded =
          p.encoded === null
            ? this.opts.encode(p.spans, size)
            : (this.opts.recode?.(p.spans, p.encoded, size) ?? p.encoded);
        group.push(p);
      } catch (err) {
        p.reject(err as Error);
      }
    }
    if (group.length === 0) {
      early?.discard();
      return;
    }
    const spans = group.length === 1 ? (group[0] as Pending).spans : group.flatMap((p) => p.spans);
    this.lastGroupSpans = spans.length;
    const encoded = group.map((p) => p.encoded as EncodedSpans);
    const deadline = Date.now() + (this.opts.retryWindowMs ?? 15_000);
    for (let attempt = 0; ; attempt++) {
      try {
        const began = performance.now();
        // The early transaction serves the first attempt only; a retry begins its own. Discarded
        // (a no-op once used) so that a commit that did not take it never leaves it open.
        const result = await this.opts
          .commit(spans, encoded, attempt === 0 ? early : undefined)
          .finally(() => early?.discard());
        this.groupSize.committed(spans.length, performance.now() - began);
        if (result === 'all') {
          for (const p of group) p.resolve(p.spans.length);
          return;
        }
        const stored = new Set(result);
        // A key is claimed once: a span sent twice (in one request or two) counts as new once.
        for (const p of group)
          p.resolve(
            p.spans.filter((s) =>
              stored.delete(storedKey(s.projectId, s.spanId, s.startedAt.getTime())),
            ).length,
          );
        return;
      } catch (err) {
        if (isTransient(err) && Date.now() < deadline) {
          this.opts.logger?.warn(
            { err: databaseReason(err), spans: spans.length, attempt },
            'database unreachable, retrying group commit',
          );
          await sleep(Math.min(100 * 2 ** attempt, 2000));
          continue;
        }
        if (isTransient(err)) {
          const out = new SpyglassError('unavailable', 'storage unavailable, retry later', {
            retryAfter: 5,
          });
          for (const p of group) p.reject(out);
          return;
        }
        if (group.length > 1) {
          // One request's bad data must not fail its neighbours: commit each on its own.
          for (const p of group) await this.commitGroup([p]);
          return;
        }
        const e = databaseReason(err);
        this.opts.logger?.error({ err: e, spans: spans.length }, 'group commit failed');
        (group[0] as Pending).reject(new CommitError(e.code, spans.length));
        return;
      }
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
