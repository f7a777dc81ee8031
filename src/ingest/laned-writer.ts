import type { Span } from '../model/span.ts';
import { GroupCommitWriter, type WriterOptions } from './writer.ts';

/**
 * Several group-commit lanes committing concurrently, so one group's commit latency (round trip,
 * WAL flush) overlaps another's work. A span's lane is chosen by its session, so two concurrent
 * commits never touch the same session's rollup rows: each session's health tag is computed by
 * one lane at a time. A request whose spans span several lanes is answered once every part is
 * committed; if a part fails, the request fails and its retry is safe (spans are stored once per
 * id, and rollups count only newly stored spans).
 */
export class LanedWriter {
  private readonly lanes: GroupCommitWriter[];

  constructor(opts: WriterOptions, laneCount: number) {
    const perLane = { ...opts, maxQueuedSpans: Math.max(1, Math.ceil(opts.maxQueuedSpans / laneCount)) };
    this.lanes = Array.from({ length: Math.max(1, laneCount) }, () => new GroupCommitWriter(perLane));
  }

  get pendingSpans(): number {
    return this.lanes.reduce((n, l) => n + l.pendingSpans, 0);
  }

  /** Resolves with how many of `spans` were new. */
  async write(spans: Span[]): Promise<number> {
    if (this.lanes.length === 1) return (this.lanes[0] as GroupCommitWriter).write(spans);
    const parts = new Map<number, Span[]>();
    for (const s of spans) {
      const lane = laneOf(s, this.lanes.length);
      const part = parts.get(lane);
      if (part) part.push(s);
      else parts.set(lane, [s]);
    }
    const stored = await Promise.all([...parts].map(([lane, part]) => (this.lanes[lane] as GroupCommitWriter).write(part)));
    return stored.reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.close()));
  }
}

/** FNV-1a over project and session key (as the rollup keys sessions), spread over the lanes. */
function laneOf(s: Span, lanes: number): number {
  const h = fnv1a(fnv1a(0x811c9dc5, s.projectId), s.sessionId ?? s.traceId ?? s.spanId);
  return (h >>> 0) % lanes;
}

/** Continues an FNV-1a hash over `text` and a NUL separator, without building a joined string per span. */
function fnv1a(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return Math.imul(h, 0x01000193);
}
