import { describe, expect, it } from 'vitest';
import { createLiveBuffer, type LiveSpan } from '../../ui/src/lib/live-buffer.ts';
import { createBackoff, createResumeCursor, replayInto } from '../../ui/src/lib/reconnect.ts';

describe('createBackoff', () => {
  it('doubles up to the maximum, with jitter inside the band', () => {
    const b = createBackoff({ baseMs: 100, maxMs: 1000, jitter: 0, random: () => 0.5 });
    expect([1, 2, 3, 4, 5, 6].map(() => b.nextDelay())).toEqual([100, 200, 400, 800, 1000, 1000]);
    const low = createBackoff({ baseMs: 100, jitter: 0.5, random: () => 0 });
    const high = createBackoff({ baseMs: 100, jitter: 0.5, random: () => 0.999999 });
    expect([low.nextDelay(), high.nextDelay()]).toEqual([50, 100]);
  });

  it('resets only after a connection that stayed up', () => {
    let now = 0;
    const b = createBackoff({ baseMs: 100, jitter: 0, stableAfterMs: 1000, now: () => now });
    b.nextDelay();
    b.nextDelay();
    b.connected();
    now = 500;
    b.disconnected(); // flapping: keep backing off
    expect(b.nextDelay()).toBe(400);
    b.connected();
    now = 2000;
    b.disconnected();
    expect(b.attempts()).toBe(0);
    expect(b.nextDelay()).toBe(100);
  });
});

describe('resume', () => {
  it('asks from just before the newest span and the buffer drops the overlap', () => {
    const cursor = createResumeCursor({ overlapMs: 1000 });
    expect(cursor.since()).toBeNull();
    const buf = createLiveBuffer<LiveSpan & { startedAt: string }>({ onFlush: () => {} });
    const live = [
      { spanId: 'a', status: 'success', startedAt: '2026-01-01T00:00:01.000Z' },
      { spanId: 'b', status: 'success', startedAt: '2026-01-01T00:00:03.000Z' },
    ];
    for (const s of live) {
      buf.push(s);
      cursor.see(s);
    }
    expect(cursor.since()).toBe('2026-01-01T00:00:02.000Z');
    const caughtUp = [
      { spanId: 'c', status: 'success', startedAt: '2026-01-01T00:00:05.000Z' },
      { spanId: 'b', status: 'success', startedAt: '2026-01-01T00:00:03.000Z' },
    ];
    expect(replayInto(buf, caughtUp)).toBe(1);
    expect(buf.view().rows.map((r) => r.spanId)).toEqual(['a', 'b', 'c']);
    buf.dispose();
  });
});
