import { describe, expect, it } from 'vitest';
import { ingestSlice } from '../../src/ingest/cpu-slices.ts';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};
const nextTurn = () => new Promise<void>((r) => setTimeout(r, 0));

describe('ingest CPU slices', () => {
  it('lets a burst of requests through in arrival order, one per turn once a slice is spent, and none is left waiting', async () => {
    await nextTurn();
    const order: number[] = [];
    const turns: number[] = [];
    let turn = 0;
    const ticker = setInterval(() => turn++, 0);
    const requests = Array.from({ length: 12 }, (_, i) => {
      const wait = ingestSlice();
      const work = () => {
        order.push(i);
        turns.push(turn);
        busy(1.5);
      };
      if (!wait) {
        work();
        return Promise.resolve();
      }
      return wait.then(work);
    });
    await Promise.all(requests);
    clearInterval(ticker);
    expect(order).toEqual([...Array(12).keys()]);
    // The first ones ran in the burst's own turn (a 3 ms slice); the rest did not all run together.
    const inFirstTurn = turns.filter((t) => t === turns[0]).length;
    expect(inFirstTurn).toBeGreaterThanOrEqual(1);
    expect(inFirstTurn).toBeLessThan(12);
    expect(new Set(turns).size).toBeGreaterThan(2);
  });

  it('does not hold up a lone request', async () => {
    await nextTurn();
    expect(ingestSlice()).toBeUndefined();
  });
});
