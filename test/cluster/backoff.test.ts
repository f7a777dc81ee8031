import { describe, expect, it } from 'vitest';
import { FIRST_DELAY_MS, restartBackoff } from '../../src/scale/cluster/backoff.ts';

describe('worker restart backoff', () => {
  it('waits 1 s, doubling to 30 s while replacements keep dying, and starts over after 60 s up', () => {
    const delays: number[] = [];
    let pending = FIRST_DELAY_MS;
    for (let i = 0; i < 7; i++) {
      const b = restartBackoff(pending, 500);
      delays.push(b.delayMs);
      pending = b.nextMs;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(restartBackoff(pending, 59_999).delayMs).toBe(30_000);
    expect(restartBackoff(pending, 60_000)).toEqual({ delayMs: 1000, nextMs: 2000 });
  });
});
