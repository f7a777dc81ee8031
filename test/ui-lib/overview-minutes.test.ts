import { describe, expect, it } from 'vitest';
import { bumpMinute } from '../../ui/src/views/overview/minutes.ts';

const m = (iso: string, spans = 0, errors = 0) => ({ minute: iso, spans, errors });
const series = [m('2026-01-01T10:00:00.000Z', 2), m('2026-01-01T10:01:00.000Z', 1, 1)];

/** The overview's live bump of spansPerMinute between polls (docs/ui.md#pages). */
describe('bumpMinute', () => {
  it('counts a span in its minute, a failure as an error too', () => {
    expect(bumpMinute(series, { startedAt: '2026-01-01T10:00:30Z', status: 'timeout' })).toEqual([
      m('2026-01-01T10:00:00.000Z', 3, 1),
      m('2026-01-01T10:01:00.000Z', 1, 1),
    ]);
  });

  it('moves the window forward for a newer minute, quiet minutes counting 0', () => {
    expect(bumpMinute(series, { startedAt: '2026-01-01T10:03:10Z', status: 'success' })).toEqual([
      m('2026-01-01T10:02:00.000Z'),
      m('2026-01-01T10:03:00.000Z', 1),
    ]);
  });

  it('ignores a span older than the window, an unreadable time, and an empty series', () => {
    expect(bumpMinute(series, { startedAt: '2026-01-01T09:59:59Z', status: 'error' })).toBe(series);
    expect(bumpMinute(series, { startedAt: 'nonsense', status: 'error' })).toBe(series);
    expect(bumpMinute([], { startedAt: '2026-01-01T10:00:00Z', status: 'error' })).toEqual([]);
  });
});
