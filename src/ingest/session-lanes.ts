import type { Span } from '../model/span.ts';

interface Hold {
  lane: number;
  /** Spans of the session queued or committing in that lane. */
  spans: number;
}

/**
 * Which commit lane holds each session while any of its spans wait or commit (LanedWriter): a
 * session's spans go to the lane that holds it, so no two concurrent commits touch the same
 * session's rollup rows; a session no lane holds may go to any. Sessions are keyed as the rollups
 * key them (project, then session id, else trace id; a span with neither is its own key).
 *
 * Unlike a fixed hash of the session, this lets a small request's spans share one lane: split
 * over two lanes by hash, a batch of 25 spans was two parts, each in a group of its lane, and
 * every request cost two commits' share; the groups were half the size and PostgreSQL's CPU per
 * span, which falls with the group's size, was higher (docs/benchmarks.md, batch 25 on PostgreSQL).
 */
export class SessionLanes {
  private readonly held = new Map<string, Map<string, Hold>>();

  /**
   * `spans` by lane, each session's in the lane that holds it; the sessions no lane holds go to the
   * lane of the request's first held session, else to `freeLane()`. Holds every session of the
   * result until release() is called with its part.
   */
  split(spans: readonly Span[], freeLane: () => number): Map<number, Span[]> {
    const lanes: number[] = new Array<number>(spans.length);
    let free = -1;
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i] as Span;
      const lane = this.held.get(s.projectId)?.get(keyOf(s))?.lane ?? -1;
      lanes[i] = lane;
      if (free < 0 && lane >= 0) free = lane;
    }
    if (free < 0) free = freeLane();
    const parts = new Map<number, Span[]>();
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i] as Span;
      const lane = (lanes[i] as number) >= 0 ? (lanes[i] as number) : free;
      this.hold(s, lane);
      const part = parts.get(lane);
      if (part) part.push(s);
      else parts.set(lane, [s]);
    }
    return parts;
  }

  /** The spans of a part are committed (or failed): their sessions are held by that much less. */
  release(part: readonly Span[]): void {
    for (const s of part) {
      const sessions = this.held.get(s.projectId);
      const key = keyOf(s);
      const h = sessions?.get(key);
      if (!sessions || !h) continue;
      if (--h.spans > 0) continue;
      sessions.delete(key);
      if (sessions.size === 0) this.held.delete(s.projectId);
    }
  }

  private hold(s: Span, lane: number): void {
    let sessions = this.held.get(s.projectId);
    if (!sessions) this.held.set(s.projectId, (sessions = new Map()));
    const key = keyOf(s);
    const h = sessions.get(key);
    if (h) h.spans++;
    else sessions.set(key, { lane, spans: 1 });
  }
}

const keyOf = (s: Span): string => s.sessionId ?? s.traceId ?? s.spanId;
