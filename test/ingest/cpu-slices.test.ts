import { describe, expect, it } from 'vitest';
import { CpuSlices, SLICE_BYTES } from '../../src/ingest/cpu-slices.ts';

const nextTurn = () => new Promise<void>((r) => setTimeout(r, 0));

/** Sends `count` bodies of `bytes` in one turn; resolves with the turn (0 = the burst's own) each one's work ran in. */
async function burst(
  slices: CpuSlices,
  count: number,
  bytes: number,
): Promise<{ order: number[]; turnOf: number[] }> {
  await nextTurn();
  const order: number[] = [];
  const turnOf: number[] = [];
  let turn = 0;
  const counter = () => {
    turn++;
    if (pending > 0) setImmediate(counter);
  };
  let pending = count;
  setImmediate(counter);
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const wait = slices.ingestSlice(bytes);
      if (wait) await wait;
      order.push(i);
      turnOf.push(turn);
      pending--;
    }),
  );
  return { order, turnOf };
}

describe('ingest CPU slices', () => {
  it('lets a burst of requests through in arrival order, a slice of body bytes per turn, and leaves none waiting', async () => {
    const perSlice = Math.ceil(SLICE_BYTES / 100_000);
    const { order, turnOf } = await burst(new CpuSlices(), 12, 100_000);
    expect(order).toEqual([...Array(12).keys()]);
    // A slice's worth ran in the burst's own turn; the rest were spread over later turns.
    expect(turnOf.filter((t) => t === 0)).toHaveLength(perSlice);
    expect(new Set(turnOf).size).toBeGreaterThanOrEqual(Math.ceil(12 / perSlice));
  });

  it('lets small requests through together, and a body larger than a slice through alone', async () => {
    const slices = new CpuSlices();
    const small = await burst(slices, Math.floor(SLICE_BYTES / 1_000), 1_000);
    expect(small.turnOf.every((t) => t === 0)).toBe(true);
    const large = await burst(slices, 3, SLICE_BYTES * 2);
    expect(large.order).toEqual([0, 1, 2]);
    expect(new Set(large.turnOf).size).toBe(3);
  });

  it("lets another tenant's small body through before a flooding tenant's next large one", async () => {
    const slices = new CpuSlices();
    await nextTurn();
    const order: string[] = [];
    const run = async (name: string, bytes: number, tenant: string) => {
      const wait = slices.ingestSlice(bytes, tenant);
      if (wait) await wait;
      order.push(name);
    };
    // The flood's three bodies arrive first, the neighbour's after them, in the same turn.
    await Promise.all([
      run('flood-1', SLICE_BYTES * 50, 'project:flood'),
      run('flood-2', SLICE_BYTES * 50, 'project:flood'),
      run('flood-3', SLICE_BYTES * 50, 'project:flood'),
      run('victim', 35_000, 'project:victim'),
    ]);
    // Arrival order would have been flood-1, flood-2, flood-3, victim.
    expect(order).toEqual(['flood-1', 'victim', 'flood-2', 'flood-3']);
  });
});
