import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryQueue, sendWithRetry, type RetryPolicy } from '../../src/alerts/delivery.ts';
import { maskWebhook, WebhookClient } from '../../src/alerts/webhook.ts';
import { createOutboundPolicy } from '../../src/net/outbound-policy.ts';
import { startReceiver, type Receiver } from './helpers.ts';

/** Retry policy and queue bounds against a real receiver on 127.0.0.1; waits are recorded, not slept. */
describe('chat delivery: retries and the bounded queue', () => {
  let receiver: Receiver;
  const client = new WebhookClient(createOutboundPolicy(['127.0.0.1/32']), 2000);
  const waits: number[] = [];
  const retry: RetryPolicy = {
    attempts: 3,
    backoffMs: (n) => 1000 * 4 ** (n - 1),
    maxRetryAfterMs: 30_000,
    sleep: async (ms) => void waits.push(ms),
  };

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('backs off on 5xx, honours Retry-After on 429 up to the cap, and stops after the last attempt', async () => {
    waits.length = 0;
    receiver.script.push(503, 500, 500);
    const out = await sendWithRetry(client, receiver.url, { text: 'x' }, retry);
    expect(out).toEqual({ ok: false, error: 'webhook answered HTTP 500', attempts: 3 });
    expect(waits).toEqual([1000, 4000]);
  });

  it('a 429 waits for Retry-After, cut to the cap, then delivers', async () => {
    waits.length = 0;
    receiver.script.push(429);
    const out = await sendWithRetry(client, receiver.url, { text: 'x' }, retry);
    expect(out).toEqual({ ok: true, error: null, attempts: 2 });
    expect(waits).toEqual([30_000]);
  });

  it('does not retry other 4xx', async () => {
    waits.length = 0;
    receiver.script.push(404);
    const out = await sendWithRetry(client, receiver.url, { text: 'x' }, retry);
    expect(out).toEqual({ ok: false, error: 'webhook answered HTTP 404', attempts: 1 });
    expect(waits).toEqual([]);
  });

  it('a refused URL sends nothing and is not retried', async () => {
    const strict = new WebhookClient(createOutboundPolicy([]));
    const before = receiver.bodies.length;
    const out = await sendWithRetry(strict, receiver.url, { text: 'x' }, retry);
    expect(out.ok).toBe(false);
    expect(out.attempts).toBe(1);
    expect(out.error).toMatch(/^refused by the outbound URL policy: /);
    expect(receiver.bodies.length).toBe(before);
  });

  it('the queue keeps at most maxPending jobs, dropping the oldest, and drain waits for the rest', async () => {
    const q = new DeliveryQueue(2, 1, () => {});
    const ran: number[] = [];
    const dropped: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    for (let i = 0; i < 5; i++) {
      q.push(
        async () => {
          await gate;
          ran.push(i);
        },
        async () => void dropped.push(i),
      );
    }
    // Job 0 runs (blocked), 1 and 2 were pushed out by 3 and 4.
    expect(dropped).toEqual([1, 2]);
    expect(await q.drain(50)).toBe(false);
    release();
    expect(await q.drain(2000)).toBe(true);
    expect(ran).toEqual([0, 3, 4]);
  });

  it('masks a webhook to scheme, host and the last 4 characters', () => {
    expect(maskWebhook('https://hooks.slack.com/services/T0/B0/XXXXabcd')).toBe(
      'https://hooks.slack.com/…abcd',
    );
  });
});
