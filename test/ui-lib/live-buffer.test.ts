import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLiveBuffer, type LiveSpan, type LiveView } from '../../ui/src/lib/live-buffer.ts';
import { classifySession, createSessionTracker } from '../../ui/src/lib/session-state.ts';

const ev = (id: string, extra: Partial<LiveSpan> = {}): LiveSpan => ({
  spanId: id,
  status: 'success',
  agentName: 'a',
  serverName: 's',
  ...extra,
});
const ids = (v: LiveView<LiveSpan> | undefined) => v?.rows.map((r) => r.spanId);

describe('createLiveBuffer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('flushes at most once per interval however fast events come', () => {
    const flushes: LiveView<LiveSpan>[] = [];
    const buf = createLiveBuffer<LiveSpan>({ onFlush: (v) => flushes.push(v), flushEveryMs: 250 });
    for (let i = 0; i < 500; i++) buf.push(ev(`s${i}`));
    expect(flushes).toHaveLength(0);
    vi.advanceTimersByTime(250);
    expect(flushes).toHaveLength(1);
    expect(flushes[0]!.rows).toHaveLength(500);
    vi.advanceTimersByTime(10_000);
    expect(flushes).toHaveLength(1); // nothing new, no flush
  });

  it('keeps the newest maxRows and drops duplicates across a replay', () => {
    const flushes: LiveView<LiveSpan>[] = [];
    const buf = createLiveBuffer<LiveSpan>({ onFlush: (v) => flushes.push(v), maxRows: 3 });
    for (const id of ['a', 'b', 'c', 'd', 'e']) buf.push(ev(id));
    expect(buf.push(ev('c'))).toBe(false);
    expect(buf.has('a')).toBe(true);
    vi.runOnlyPendingTimers();
    expect(ids(flushes.at(-1))).toEqual(['c', 'd', 'e']);
  });

  it('remembers a bounded number of ids', () => {
    const buf = createLiveBuffer<LiveSpan>({ onFlush: () => {}, maxRows: 2, dedupIds: 3 });
    for (const id of ['a', 'b', 'c', 'd']) buf.push(ev(id));
    expect(buf.has('a')).toBe(false);
    expect(buf.has('d')).toBe(true);
    buf.dispose();
  });

  it('holds new rows while paused, counts them, and shows them on resume', () => {
    const flushes: LiveView<LiveSpan>[] = [];
    const buf = createLiveBuffer<LiveSpan>({ onFlush: (v) => flushes.push(v) });
    buf.push(ev('a'));
    vi.runOnlyPendingTimers();
    buf.setPaused(true);
    buf.push(ev('b'));
    buf.push(ev('c', { status: 'error' }));
    vi.runOnlyPendingTimers();
    expect(flushes.at(-1)).toMatchObject({ newCount: 2, paused: true });
    expect(ids(flushes.at(-1))).toEqual(['a']);
    buf.setPaused(false);
    vi.runOnlyPendingTimers();
    expect(flushes.at(-1)).toMatchObject({ newCount: 0, paused: false });
    expect(ids(flushes.at(-1))).toEqual(['a', 'b', 'c']);
  });

  it('filters by agent, server and status without forgetting filtered rows', () => {
    const buf = createLiveBuffer<LiveSpan>({ onFlush: () => {}, filter: { status: 'error' } });
    buf.push(ev('a', { status: 'error', serverName: 'fs' }));
    buf.push(ev('b', { agentName: 'x' }));
    expect(ids(buf.view())).toEqual(['a']);
    buf.setFilter({ agentName: 'x' });
    expect(ids(buf.view())).toEqual(['b']);
    buf.setFilter({ serverName: 'fs' });
    expect(ids(buf.view())).toEqual(['a']);
    buf.dispose();
  });
});

describe('session state', () => {
  it('classifies by silence and by the root span having arrived', () => {
    const t = { idleAfterMs: 10, stuckAfterMs: 100, doneAfterMs: 1000 };
    expect(classifySession({ lastActivityAt: 0, ended: false }, 5, t)).toBe('running');
    expect(classifySession({ lastActivityAt: 0, ended: false }, 50, t)).toBe('idle');
    expect(classifySession({ lastActivityAt: 0, ended: false }, 500, t)).toBe('stuck');
    expect(classifySession({ lastActivityAt: 0, ended: false }, 5000, t)).toBe('done');
    expect(classifySession({ lastActivityAt: 0, ended: true }, 1, t)).toBe('done');
  });

  it('tracks sessions with an injected clock, newest first, bounded', () => {
    let now = 0;
    const tracker = createSessionTracker({ now: () => now, maxSessions: 2 });
    tracker.track({ sessionId: 's1', parentSpanId: 'p', status: 'success' });
    now = 40_000;
    tracker.track({ sessionId: 's2', status: 'error' });
    tracker.track({ sessionId: null, status: 'success' });
    expect(tracker.list().map((s) => [s.sessionId, s.state, s.failures])).toEqual([
      ['s2', 'running', 1],
      ['s1', 'idle', 0],
    ]);
    tracker.track({ sessionId: 's1', parentSpanId: null, status: 'success' });
    tracker.track({ sessionId: 's3', status: 'success' });
    expect(tracker.list().map((s) => [s.sessionId, s.state])).toEqual([
      ['s3', 'running'],
      ['s1', 'done'],
    ]);
  });
});
