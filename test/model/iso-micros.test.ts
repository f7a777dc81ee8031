import { describe, expect, it } from 'vitest';
import { isoMicros } from '../../src/model/span.ts';

/** isoMicros reuses the text up to the second between calls: every call must still be exact. */
describe('isoMicros', () => {
  it.each([
    [Date.parse('2026-11-27T01:25:15.000Z'), undefined, '2026-11-27T01:25:15.000Z'],
    [Date.parse('2026-11-27T01:25:15.007Z'), 0, '2026-11-27T01:25:15.007Z'],
    [Date.parse('2026-11-27T01:25:15.070Z'), 5, '2026-11-27T01:25:15.070005Z'],
    [Date.parse('2026-11-27T01:25:15.999Z'), 999, '2026-11-27T01:25:15.999999Z'],
    [Date.parse('2026-11-27T01:25:16.000Z'), 45, '2026-11-27T01:25:16.000045Z'],
    [-1, undefined, '1969-12-31T23:59:59.999Z'],
    [-1000, 1, '1969-12-31T23:59:59.000001Z'],
    [Date.parse('0001-01-01T00:00:00.000Z'), undefined, '0001-01-01T00:00:00.000Z'],
    [Date.parse('9999-12-31T23:59:59.999Z'), 120, '9999-12-31T23:59:59.999120Z'],
  ])('%d with %s µs is %s', (ms, micros, iso) => {
    expect(isoMicros(new Date(ms), micros)).toBe(iso);
  });

  it('is toISOString with the microseconds, whatever the calls before it', () => {
    const times = [1_700_000_000_123, 1_700_000_000_999, 1_700_000_001_000, 1_700_000_000_500];
    for (let i = 0; i < 2_000; i++) times.push(Math.floor((Math.random() - 0.3) * 4e12));
    for (const ms of times)
      for (const micros of [undefined, 0, 7, 999]) {
        const iso = new Date(ms).toISOString();
        const want = micros ? `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z` : iso;
        expect(isoMicros(new Date(ms), micros)).toBe(want);
      }
  });

  it('throws on an invalid date, as toISOString does', () => {
    expect(() => isoMicros(new Date(Number.NaN), undefined)).toThrow(RangeError);
  });
});
