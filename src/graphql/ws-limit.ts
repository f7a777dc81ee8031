import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { GraphqlServices } from './builder.ts';

/** What the WebSocket transport uses: the handshake's checks and the live budget. */
export type WsDeps = Pick<
  GraphqlServices,
  'auth' | 'config' | 'limiter' | 'liveClients' | 'delivery'
>;

/** Why an upgrade (or a message on an open socket) is refused. */
export interface Refusal {
  status: number;
  detail: string;
  retryAfter?: number;
}

/** The WebSocket transport's rate limit: per address for upgrades, per key or address after. */
export async function rateLimit(s: WsDeps, who: string): Promise<Refusal | null> {
  if (!s.config.rateLimits.enabled) return null;
  const r = await s.limiter.take('graphql-ws', s.config.rateLimits.default, who);
  return r.ok
    ? null
    : {
        status: 429,
        detail: `Rate limit exceeded: ${r.limit} per 1 minute`,
        retryAfter: r.retryAfterSeconds,
      };
}

/** The client address, X-Forwarded-For counting only from trusted proxies (as for HTTP routes). */
export function clientId(req: IncomingMessage, s: WsDeps): string {
  return `ip:${proxyaddr(req, (addr) => s.auth.isTrustedProxy(addr))}`;
}
