/**
 * Span export: a bounded buffer sent in batches to POST /api/traces/spans, one request in flight.
 * It never throws into the agent and never blocks it: a full buffer drops its oldest spans, a
 * backend that is down or overloaded is retried with exponential backoff and full jitter (honouring
 * Retry-After), and a batch the backend refuses for good (4xx other than 408/429) is dropped.
 */
import { BackendAnswerError, request } from './http.ts';
import type { ExportStats, SdkLogger } from './types.ts';
import type { WireSpan } from './span.ts';

export interface ExporterOptions {
  url: string;
  apiKey: string | undefined;
  flushIntervalMs: number;
  maxBufferedSpans: number;
  logger: SdkLogger;
}

/** A batch this size is sent without waiting for the timer. */
export const EAGER_BATCH = 500;
/** The most spans per request. */
export const MAX_BATCH = 1000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** An explicit flush waits out a backoff only when it ends this soon. */
const FLUSH_MAX_WAIT_MS = 2000;
const LOG_EVERY_MS = 10_000;

type Outcome =
  | { kind: 'sent' }
  | { kind: 'dropped'; status: number }
  | { kind: 'retry'; reason: string; retryAfterMs: number | null };

export class SpanExporter {
  private buffer: WireSpan[] = [];
  private inFlight: Promise<void> | null = null;
  private failures = 0;
  /** No send before this time (ms since the epoch): backoff or Retry-After. */
  private retryAt = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly counts = { sent: 0, dropped: 0, failedAttempts: 0 };
  private readonly lastLog = new Map<string, number>();
  private readonly endpoint: string;
  /** Aborts the request in flight (shutdown past its timeout). */
  private aborter = new AbortController();

  constructor(private readonly opts: ExporterOptions) {
    this.endpoint = `${opts.url.replace(/\/+$/, '')}/api/traces/spans`;
    this.timer = setInterval(() => this.kick(), opts.flushIntervalMs);
    this.timer.unref();
  }

  add(span: WireSpan): void {
    this.buffer.push(span);
    const over = this.buffer.length - this.opts.maxBufferedSpans;
    if (over > 0) {
      this.buffer.splice(0, over);
      this.drop(
        over,
        'buffer',
        `Spyglass: span buffer full (${this.opts.maxBufferedSpans}); oldest spans dropped`,
      );
    }
    if (this.buffer.length >= EAGER_BATCH) this.kick();
  }

  stats(): ExportStats {
    return { buffered: this.buffer.length, ...this.counts };
  }

  /**
   * Sends what is buffered now, one attempt per batch; a failed attempt ends the flush (those spans
   * stay buffered and are retried in the background). Waits out a pending backoff only when it ends
   * within 2 s, so it never hangs on a backend that is down. Starts no send after `deadline` (ms
   * since the epoch; Spyglass.flush/shutdown bound the wait itself by flushTimeoutMs).
   */
  async flush(deadline = Infinity): Promise<void> {
    let left = this.buffer.length;
    while (left > 0) {
      if (this.inFlight) await this.inFlight;
      const wait = this.retryAt - Date.now();
      if (wait > FLUSH_MAX_WAIT_MS || Date.now() + Math.max(wait, 0) >= deadline) return;
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (this.inFlight) continue;
      const before = this.buffer.length;
      if (before === 0) return;
      const outcome = await this.start();
      if (outcome.kind === 'retry') return;
      left -= Math.min(MAX_BATCH, before);
    }
    if (this.inFlight) await this.inFlight;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Cancels the request in flight: its spans go back to the buffer (a shutdown that ran out of time). */
  abort(): void {
    this.aborter.abort();
    this.aborter = new AbortController();
  }

  /** Starts a send unless one is in flight, the buffer is empty or a backoff is pending. */
  private kick(): void {
    if (this.inFlight || this.buffer.length === 0 || Date.now() < this.retryAt) return;
    void this.start();
  }

  private start(): Promise<Outcome> {
    const batch = this.buffer.splice(0, MAX_BATCH);
    const run = this.send(batch).then((outcome) => {
      this.settle(batch, outcome);
      return outcome;
    });
    this.inFlight = run.then(() => {
      this.inFlight = null;
      if (this.buffer.length >= EAGER_BATCH) this.kick();
    });
    return run;
  }

  private settle(batch: WireSpan[], outcome: Outcome): void {
    if (outcome.kind === 'sent') {
      this.counts.sent += batch.length;
      this.failures = 0;
      this.retryAt = 0;
    } else if (outcome.kind === 'dropped') {
      if (outcome.status === 0) this.counts.dropped += batch.length;
      else
        this.drop(
          batch.length,
          'refused',
          `Spyglass: the backend refused ${batch.length} spans with HTTP ${outcome.status}; dropped`,
        );
    } else {
      this.counts.failedAttempts++;
      this.failures++;
      // Full jitter: a random wait up to the exponential ceiling, so many agents don't retry in step.
      const ceiling = Math.min(
        BACKOFF_CAP_MS,
        BACKOFF_BASE_MS * 2 ** Math.min(this.failures - 1, 16),
      );
      const wait =
        outcome.retryAfterMs !== null
          ? Math.min(outcome.retryAfterMs, BACKOFF_CAP_MS)
          : Math.random() * ceiling;
      this.retryAt = Date.now() + wait;
      // Back at the front: they are the oldest, so a full buffer drops them first.
      this.buffer.unshift(...batch);
      const over = this.buffer.length - this.opts.maxBufferedSpans;
      if (over > 0) {
        this.buffer.splice(0, over);
        this.drop(
          over,
          'buffer',
          `Spyglass: span buffer full (${this.opts.maxBufferedSpans}); oldest spans dropped`,
        );
      }
      this.log(
        'retry',
        `Spyglass: could not send spans (${outcome.reason}); retrying in ${Math.round(wait)} ms`,
        { buffered: this.buffer.length },
      );
    }
  }

  private async send(batch: WireSpan[]): Promise<Outcome> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    try {
      const res = await request(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(batch),
        timeoutMs: REQUEST_TIMEOUT_MS,
        abort: this.aborter.signal,
      });
      if (res.ok) return { kind: 'sent' };
      if (res.status >= 500 || res.status === 429 || res.status === 408) {
        return {
          kind: 'retry',
          reason: `HTTP ${res.status}`,
          retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
        };
      }
      return { kind: 'dropped', status: res.status };
    } catch (err) {
      if (err instanceof BackendAnswerError) {
        // A redirect or an oversized answer: retrying sends the same spans into the same answer.
        this.log('answer', `Spyglass: ${err.message}; ${batch.length} spans dropped`, {
          url: this.opts.url,
        });
        return { kind: 'dropped', status: 0 };
      }
      return { kind: 'retry', reason: (err as Error).message, retryAfterMs: null };
    }
  }

  private drop(n: number, key: string, message: string): void {
    this.counts.dropped += n;
    this.log(key, message, { dropped: this.counts.dropped });
  }

  /** At most one message per kind every 10 s: a dead backend must not flood the agent's log. */
  private log(key: string, message: string, details: Record<string, unknown>): void {
    const now = Date.now();
    if (now - (this.lastLog.get(key) ?? -Infinity) < LOG_EVERY_MS) return;
    this.lastLog.set(key, now);
    this.opts.logger.warn(message, details);
  }
}

/** Retry-After in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
