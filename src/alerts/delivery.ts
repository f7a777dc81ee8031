import type { WebhookClient } from './webhook.ts';

/**
 * Chat delivery off the producer's path: a bounded in-process queue (the oldest pending job is
 * dropped when full, and recorded as failed by its owner), a few posts at a time, each retried a
 * bounded number of times on network errors, timeouts, 5xx and 429 (Retry-After honoured up to a
 * cap), never on other 4xx. Waits go through `sleep` so tests need no real multi-second sleeps.
 */
export interface RetryPolicy {
  attempts: number;
  /** Wait before retry n (1-based). */
  backoffMs: (retry: number) => number;
  /** A Retry-After longer than this is cut to it. */
  maxRetryAfterMs: number;
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 3,
  backoffMs: (n) => 1000 * 4 ** (n - 1),
  maxRetryAfterMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
};

export interface SendResult {
  ok: boolean;
  error: string | null;
  attempts: number;
}

export async function sendWithRetry(
  client: WebhookClient,
  url: string,
  body: unknown,
  retry: RetryPolicy,
): Promise<SendResult> {
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const out = await client.post(url, body);
    if (out.ok) return { ok: true, error: null, attempts };
    if (!out.retryable || attempts >= retry.attempts)
      return { ok: false, error: out.error, attempts };
    const wait =
      out.retryAfterMs !== null
        ? Math.min(out.retryAfterMs, retry.maxRetryAfterMs)
        : retry.backoffMs(attempts);
    await retry.sleep(wait);
  }
}

interface Job {
  run: () => Promise<void>;
  dropped: () => Promise<void>;
}

export class DeliveryQueue {
  private readonly pending: Job[] = [];
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly maxPending: number,
    private readonly concurrency: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  push(run: () => Promise<void>, dropped: () => Promise<void>): void {
    this.pending.push({ run, dropped });
    if (this.pending.length > this.maxPending) {
      const oldest = this.pending.shift() as Job;
      this.track(oldest.dropped());
    }
    this.pump();
  }

  get size(): number {
    return this.pending.length + this.running.size;
  }

  /** Waits for queued and running posts, at most `timeoutMs`; returns whether everything finished. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.running]),
        new Promise((r) => (timer = setTimeout(r, left))),
      ]);
      clearTimeout(timer);
    }
    return true;
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.pending.length > 0) {
      const job = this.pending.shift() as Job;
      this.track(job.run());
    }
  }

  private track(p: Promise<void>): void {
    const done = p.catch(this.onError).finally(() => {
      this.running.delete(done);
      this.pump();
    });
    this.running.add(done);
  }
}
