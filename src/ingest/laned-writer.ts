import { SpyglassError } from '../errors.ts';
import type { Span } from '../model/span.ts';
import { SessionLanes } from './session-lanes.ts';
import { GroupCommitWriter, type WriterOptions } from './writer.ts';

export interface LanedWriterOptions extends WriterOptions {
  /**
   * Spans one project may have waiting for commit, over every lane; beyond it its requests get
   * 429 with Retry-After (its own backlog, not an outage). A project with nothing queued is
   * always admitted, so a batch larger than the cap still goes through alone.
   */
  maxQueuedSpansPerProject?: number;
}

/**
 * Several group-commit lanes committing concurrently, so one group's commit latency (round trip,
 * WAL flush) overlaps another's work. A session is held by one lane while any of its spans wait or
 * commit (SessionLanes), so two concurrent commits never touch the same session's rollup rows:
 * each session's health tag is computed by one lane at a time. Sessions no lane holds go to the
 * first lane until it has a full group (`maxCommitSpans`) waiting or committing, then to the
 * least busy: under a light load every request is one part in one lane and groups stay large
 * (a commit's fixed cost is shared by more spans); under a heavy one the lanes overlap. A request
 * whose spans span several lanes is answered once every part is committed; if a part fails, the
 * request fails and its retry is safe (spans are stored once per id, and rollups count only newly
 * stored spans).
 *
 * A request is its first span's project's (a project-bound key can only send its own): every
 * lane shares its queue fairly between projects (see GroupCommitWriter), and a project's queued
 * spans over all lanes are capped.
 */
export class LanedWriter {
  private readonly lanes: GroupCommitWriter[];
  private readonly perProject = new Map<string, number>();
  private readonly projectCap: number;
  private readonly sessions = new SessionLanes();
  private readonly fullGroup: number;
  private readonly maxQueued: number;

  constructor(opts: LanedWriterOptions, laneCount: number) {
    this.projectCap = opts.maxQueuedSpansPerProject ?? Number.POSITIVE_INFINITY;
    this.fullGroup = opts.maxCommitSpans;
    this.maxQueued = opts.maxQueuedSpans;
    // Each lane may take the whole queue: a lane holds its sessions' spans, however many there are.
    this.lanes = Array.from({ length: Math.max(1, laneCount) }, () => new GroupCommitWriter(opts));
  }

  get pendingSpans(): number {
    return this.lanes.reduce((n, l) => n + l.pendingSpans, 0);
  }

  /** Spans of `project` waiting for commit. */
  queuedFor(project: string): number {
    return this.perProject.get(project) ?? 0;
  }

  /**
   * Throws the 429 a request of `spans` spans of `project` gets while the project's backlog is
   * full; a receiver may ask before validating a large batch, so that work is not spent on a
   * request that would be refused.
   */
  admit(project: string, spans: number): void {
    const queued = this.queuedFor(project);
    if (queued > 0 && queued + spans > this.projectCap) {
      throw new SpyglassError(
        'rate_limited',
        `project ${JSON.stringify(project.slice(0, 128))} has ${queued} spans waiting for commit (at most ${this.projectCap}); retry later`,
        { retryAfter: 1 },
      );
    }
  }

  /** Resolves with how many of `spans` were new. */
  async write(spans: Span[]): Promise<number> {
    if (spans.length === 0) return 0;
    const project = (spans[0] as Span).projectId;
    this.admit(project, spans.length);
    const pending = this.pendingSpans;
    if (pending > 0 && pending + spans.length > this.maxQueued)
      throw new SpyglassError('overloaded', 'ingest queue is full, retry later', { retryAfter: 1 });
    const queued = this.queuedFor(project);
    this.perProject.set(project, queued + spans.length);
    try {
      return await this.writeLanes(spans, project);
    } finally {
      const left = this.queuedFor(project) - spans.length;
      if (left > 0) this.perProject.set(project, left);
      else this.perProject.delete(project);
    }
  }

  private async writeLanes(spans: Span[], project: string): Promise<number> {
    if (this.lanes.length === 1) return (this.lanes[0] as GroupCommitWriter).write(spans, project);
    const parts = this.sessions.split(spans, () => this.freeLane());
    // Settled, not raced: the project's queued count drops only once no part is queued any more.
    const settled = await Promise.allSettled(
      [...parts].map(([lane, part]) =>
        (this.lanes[lane] as GroupCommitWriter)
          .write(part, project)
          .finally(() => this.sessions.release(part)),
      ),
    );
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.reduce((a, r) => a + (r as PromiseFulfilledResult<number>).value, 0);
  }

  /** The lane for sessions no lane holds: the first until it has a full group, then the least busy. */
  private freeLane(): number {
    const first = this.lanes[0] as GroupCommitWriter;
    // A full group at the cap of the moment: shared by several projects, groups are smaller, and
    // the first lane would otherwise queue many of them while the others wait idle.
    if (first.pendingSpans < Math.min(this.fullGroup, first.groupCap)) return 0;
    let best = 0;
    for (let i = 1; i < this.lanes.length; i++)
      if (
        (this.lanes[i] as GroupCommitWriter).pendingSpans <
        (this.lanes[best] as GroupCommitWriter).pendingSpans
      )
        best = i;
    return best;
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.close()));
  }
}
