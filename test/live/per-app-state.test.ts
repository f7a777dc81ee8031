import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLICE_BYTES } from '../../src/ingest/cpu-slices.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/**
 * Two apps in one process (as vitest runs test files, and as tests start several servers) keep
 * their own live delivery budget and their own ingest CPU slices: the share one is configured
 * with, the credit one spends and the bodies one queues never reach the other.
 */
describe('per-app live and ingest state', () => {
  let a: InProcessApp;
  let b: InProcessApp;
  beforeAll(async () => {
    a = await startInProcessApp({ SPYGLASS_LIVE_DELIVERY_SHARE_PERCENT: '10' });
    // Built second: under one process-wide share, its 50% would have become the first app's too.
    b = await startInProcessApp({ SPYGLASS_LIVE_DELIVERY_SHARE_PERCENT: '50' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('keeps each app at its own live.delivery_share_percent', () => {
    expect(a.services.delivery).not.toBe(b.services.delivery);
    expect(a.services.delivery.share).toBe(0.1);
    expect(b.services.delivery.share).toBe(0.5);
  });

  it("does not make one app's live delivery wait for the credit another spent", async () => {
    // Each budget is full (credit accrues lazily, on the next wait), then the first spends 15 ms.
    expect(a.services.delivery.creditWait()).toBeNull();
    expect(b.services.delivery.creditWait()).toBeNull();
    a.services.delivery.charge(15);
    const waiting = a.services.delivery.creditWait();
    expect(waiting).not.toBeNull();
    expect(b.services.delivery.creditWait()).toBeNull();
    await waiting;
  });

  it("does not queue one app's ingest bodies behind another's slice", async () => {
    const first = a.services.slices.ingestSlice(SLICE_BYTES * 2, 'project:flood');
    expect(first).toBeUndefined();
    // The first app's slice for this turn is spent: its next body waits for a later turn...
    const queued = a.services.slices.ingestSlice(1_000, 'project:other');
    expect(queued).toBeInstanceOf(Promise);
    // ...while the second app's own slice lets the same body through at once.
    expect(b.services.slices.ingestSlice(1_000, 'project:other')).toBeUndefined();
    await queued;
  });
});
