import type { Logger } from 'pino';
import { readKey } from '../auth/authenticate.ts';
import { sha256 } from '../auth/secrets.ts';

/**
 * Rate-limited ingest drops telemetry (the exporter retries, then gives up), so it must never be
 * silent: one warning per caller per minute, on every transport, without flooding the log when a
 * busy exporter keeps hitting the limit.
 */
export class RateLimitWarnings {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly everyMs = 60_000,
  ) {}

  /** `who` is what the limit counts by (see whoIs); never a raw API key. */
  rateLimited(
    who: string,
    detail: { transport: 'http' | 'grpc'; route: string; limitPerMinute?: number },
  ): void {
    const t = this.now();
    const previous = this.last.get(who);
    if (previous !== undefined && t - previous < this.everyMs) return;
    if (this.last.size >= 10_000) this.forgetOld(t);
    this.last.set(who, t);
    this.logger.warn(
      { who, ...detail },
      "ingest rate limit exceeded: this caller's telemetry is being refused (429 / RESOURCE_EXHAUSTED)",
    );
  }

  private forgetOld(t: number): void {
    for (const [who, at] of this.last) if (t - at >= this.everyMs) this.last.delete(who);
    if (this.last.size >= 10_000) this.last.clear();
  }
}

/** Who a limit counts: the API key (as a hash prefix, as the HTTP limits key it), else the address. */
export function whoIs(
  headers: Record<string, string | string[] | undefined>,
  address: string,
): string {
  const key = readKey(headers);
  return key ? `key:${sha256(key).slice(0, 24)}` : `ip:${address}`;
}
