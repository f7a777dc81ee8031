import type { Principal } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';
import { whoIs } from '../ingest/rate-limit-warnings.ts';
import { enforce } from '../auth/access.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import type { Config } from '../config/types.ts';
import type { RateLimitWarnings } from '../ingest/rate-limit-warnings.ts';
import type { Limiter } from '../scale/limits/limiter.ts';
import { exportOtlp, type OtlpExportDeps } from './otlp-export.ts';
import type { CallMeta } from './otlp-grpc.ts';
import type { DecodedExport, ExportOutcome } from '../model/otlp.ts';

/** What admitting a gRPC call uses, and nothing else. */
export interface GrpcAdmitDeps {
  config: Pick<Config, 'rateLimits'>;
  limiter: Limiter;
  rateLimitWarnings: RateLimitWarnings;
  auth: Authenticator;
}

/**
 * What OTLP/HTTP does before its handler, for a gRPC call and from its metadata alone: the `otlp`
 * rate limit (counted per API key, else per address, like HTTP), then authentication and the
 * write check. A throttled call gets RESOURCE_EXHAUSTED with google.rpc.RetryInfo.
 */
export async function admitGrpcExport(s: GrpcAdmitDeps, meta: CallMeta): Promise<Principal> {
  const address = peerAddress(meta.peer);
  if (s.config.rateLimits.enabled) {
    const who = whoIs(meta.metadata, address);
    const res = await s.limiter.take('otlp', s.config.rateLimits.otlp, who);
    if (!res.ok) {
      s.rateLimitWarnings.rateLimited(who, {
        transport: 'grpc',
        route: 'TraceService/Export',
        limitPerMinute: res.limit,
      });
      throw new SpyglassError('rate_limited', `Rate limit exceeded: ${res.limit} per 1 minute`, {
        retryAfter: res.retryAfterSeconds,
      });
    }
  }
  const principal = await s.auth.authenticate({ headers: meta.metadata, remoteAddress: address });
  enforce(principal, 'write');
  return principal;
}

/** What the export of an admitted gRPC call uses, and nothing else. */
export interface GrpcExportDeps extends OtlpExportDeps {
  rateLimitWarnings: RateLimitWarnings;
}

/**
 * The export itself; refused for the project's spans per minute or its queue share
 * (RESOURCE_EXHAUSTED), it is logged as OTLP/HTTP's 429s are: telemetry is being dropped.
 */
export async function exportGrpc(
  s: GrpcExportDeps,
  principal: Principal,
  req: DecodedExport,
  meta: CallMeta,
): Promise<ExportOutcome> {
  try {
    return await exportOtlp(s, principal, req);
  } catch (err) {
    if (err instanceof SpyglassError && err.code === 'rate_limited') {
      s.rateLimitWarnings.rateLimited(whoIs(meta.metadata, peerAddress(meta.peer)), {
        transport: 'grpc',
        route: 'TraceService/Export',
      });
    }
    throw err;
  }
}

/** grpc-js peers look like `ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000` or `127.0.0.1:5000`. */
export function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, '');
  const v6 = /^\[([^\]]+)\]/.exec(bare);
  if (v6) return v6[1] as string;
  return bare.replace(/:\d+$/, '');
}
