import { describe, expect, it } from 'vitest';
import { parseUtc } from '../../src/normalize/native.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';

const pad = (v: number, width: number) => String(v).padStart(width, '0');

describe('span timestamps (spec §2.1: every timestamp is UTC)', () => {
  it('reads an exporter-style timestamp exactly as the ISO 8601 reader does, edge fields included', () => {
    const rand = mulberry32(20261124);
    const pick = (edges: number[], lo: number, hi: number) =>
      rand() < 0.3
        ? (edges[Math.floor(rand() * edges.length)] as number)
        : lo + Math.floor(rand() * (hi - lo + 1));
    for (let i = 0; i < 5000; i++) {
      const date = `${pad(pick([0, 1, 99, 100, 999, 1000, 1969, 1970, 2024, 9999], 1000, 9999), 4)}-${pad(pick([0, 1, 2, 12, 13], 1, 12), 2)}-${pad(pick([0, 1, 28, 29, 30, 31, 32], 1, 31), 2)}`;
      const time = `${pad(pick([0, 23, 24, 25], 0, 23), 2)}:${pad(pick([0, 59, 60], 0, 59), 2)}:${pad(pick([0, 59, 60], 0, 59), 2)}`;
      const fraction =
        rand() < 0.3 ? '' : `.${'123456789012'.slice(0, 1 + Math.floor(rand() * 12))}`;
      const s = `${date}T${time}${fraction}Z`;
      expect(parseUtc(s), s).toBe(Date.parse(s));
    }
  });

  it('reads other ISO 8601 forms as before: naive times as UTC, offsets, dates, and refuses the rest', () => {
    expect(parseUtc('2024-03-05T10:20:30.250')).toBe(Date.UTC(2024, 2, 5, 10, 20, 30, 250));
    expect(parseUtc('2024-03-05 10:20:30Z')).toBe(Date.UTC(2024, 2, 5, 10, 20, 30));
    expect(parseUtc('2024-03-05T12:20:30+02:00')).toBe(Date.UTC(2024, 2, 5, 10, 20, 30));
    expect(parseUtc('2024-03-05')).toBe(Date.UTC(2024, 2, 5));
    expect(parseUtc('2024-03-05T10:20:30.Z')).toBeNaN();
    expect(parseUtc('2024-03-05T10:20:30.123456789012Z')).toBe(
      Date.UTC(2024, 2, 5, 10, 20, 30, 123),
    );
    expect(parseUtc('2024-03-05T10:2a:30Z')).toBeNaN();
    expect(parseUtc('March 5, 2024')).toBeNaN();
  });
});
