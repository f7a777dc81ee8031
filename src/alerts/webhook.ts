import { addressOfHost, checkOutboundUrl, type OutboundPolicy } from '../net/outbound-policy.ts';
import {
  createGuardedFetch,
  OutboundPolicyError,
  type GuardedFetch,
} from '../net/guarded-fetch.ts';

/**
 * Chat webhooks under the outbound policy (docs/alerts.md): https only, public addresses only,
 * unless the operator lists the range under `network.allow_private_targets`. Inside such a range
 * plain http is accepted too, since a receiver on a private network (or the tests' receiver on
 * 127.0.0.1) rarely has a certificate; a public http URL is always refused.
 *
 * Errors say which rule refused or what HTTP status came back, never the receiver's answer.
 */
export type WebhookCheck = { ok: true; url: URL } | { ok: false; reason: string };

export interface PostOutcome {
  ok: boolean;
  /** Worth another attempt: a network error, a timeout, 5xx or 429. */
  retryable: boolean;
  error: string | null;
  /** Retry-After of a 429/503, in ms, when the receiver sent one. */
  retryAfterMs: number | null;
}

export class WebhookClient {
  constructor(
    readonly policy: OutboundPolicy,
    private readonly timeoutMs = 10_000,
    private readonly fetch: GuardedFetch = createGuardedFetch(policy),
  ) {}

  /** The checks that need no DNS; hostnames are checked again on every connection. */
  check(raw: string): WebhookCheck {
    const base = checkOutboundUrl(raw, this.policy);
    if (!base.ok) return base;
    if (base.url.protocol === 'http:') {
      const address = addressOfHost(base.url.hostname);
      const listed =
        address !== null &&
        this.policy.allowed.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
      if (!listed)
        return {
          ok: false,
          reason:
            'webhooks must use https (http only for targets listed in network.allow_private_targets)',
        };
    }
    return base;
  }

  /** Posts one JSON body; a refused URL is refused before any connection is made. */
  async post(raw: string, body: unknown): Promise<PostOutcome> {
    const checked = this.check(raw);
    if (!checked.ok) return fail(false, `refused by the outbound URL policy: ${checked.reason}`);
    let res: Response;
    try {
      res = await this.fetch(checked.url.href, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      if (err instanceof OutboundPolicyError) return fail(false, err.message);
      const e = err as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError')
        return fail(true, `webhook did not answer within ${this.timeoutMs / 1000} s`);
      const cause = e.cause instanceof OutboundPolicyError ? e.cause : null;
      if (cause) return fail(false, cause.message);
      return fail(true, `webhook unreachable${e.cause?.code ? ` (${e.cause.code})` : ''}`);
    }
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300)
      return { ok: true, retryable: false, error: null, retryAfterMs: null };
    if (res.status >= 300 && res.status < 400)
      return fail(false, `webhook answered HTTP ${res.status} (redirects are not followed)`);
    const retryable = res.status >= 500 || res.status === 429;
    return {
      ...fail(retryable, `webhook answered HTTP ${res.status}`),
      retryAfterMs: retryAfter(res.headers.get('retry-after')),
    };
  }
}

function fail(retryable: boolean, error: string): PostOutcome {
  return { ok: false, retryable, error, retryAfterMs: null };
}

function retryAfter(raw: string | null): number | null {
  if (!raw) return null;
  const secs = Number(raw);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** scheme + host + `/…` + the last 4 characters: enough to recognise a webhook, not to use it. */
export function maskWebhook(raw: string): string {
  let prefix = '';
  try {
    const u = new URL(raw);
    prefix = `${u.protocol}//${u.host}`;
  } catch {
    prefix = '';
  }
  return `${prefix}/…${raw.slice(-4)}`;
}
