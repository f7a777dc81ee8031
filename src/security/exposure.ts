import type { GuardedFetch } from '../net/guarded-fetch.ts';
import type { CheckTarget } from '../model/health.ts';
import { hasAuthConfigured } from '../scoring/auth-configured.ts';
import { CREDENTIAL_HEADER } from './checks/secret-patterns.ts';
import {
  deleteSession,
  initializeBody,
  openSseEndpoint,
  postRpc,
  PROBE_PROTOCOL,
  type Fetcher,
} from './exposure-http.ts';
import type { HttpExposure } from './types.ts';

/**
 * The extra requests a scan makes to a remote server (docs/security.md#the-extra-requests-made-to-remote-servers T-AUTH, T-ORIGIN,
 * T-SSE-URL-SESSION), filling Observation.http. Each question is asked once, bounded by the
 * timeout, and answered null when it could not be decided (network error, policy refusal, abort).
 *
 * What a fetch can send: `Origin` yes; `Host` no (fetch replaces it with the URL's host), so the
 * DNS-rebinding question is whether the server answers a request whose Origin is foreign, which
 * is what a browser on a rebound name sends and what the SDK's rebinding protection refuses.
 */
export const FOREIGN_ORIGIN = 'http://evil.invalid';
const WELL_KNOWN_MS = 2000;

export interface ExposureOptions {
  guardedFetch?: GuardedFetch | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  /**
   * Whether the scan's health check reached the server and listed its tools. Without credentials
   * configured, that check already was the unauthenticated attempt, so none is repeated.
   */
  healthOk?: boolean | undefined;
}

/** Null for stdio targets (nothing to probe). */
export async function probeExposure(
  target: CheckTarget,
  opts: ExposureOptions,
): Promise<HttpExposure> {
  const out: HttpExposure = {
    unauthenticated: null,
    oauthMetadata: null,
    foreignOriginAccepted: null,
    allowOriginStar: null,
    sessionIdInUrl: null,
  };
  if (target.transport === 'stdio' || !target.url) return out;
  const fetcher: Fetcher = opts.guardedFetch ?? ((input, init) => fetch(input, init));
  const bounded = (ms = opts.timeoutMs) =>
    opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(ms)]) : AbortSignal.timeout(ms);
  const headers = target.headers ?? {};
  const withoutCredentials = Object.fromEntries(
    Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADER.test(name)),
  );
  const ask = target.transport === 'sse' ? askSse : askStreamable;

  // Sent as a page on a rebound name would send it: a foreign Origin and none of our credentials
  // (a browser has no Authorization header to add), so a server that demands them is not flagged.
  const foreign = await ask(
    fetcher,
    target.url,
    { ...withoutCredentials, origin: FOREIGN_ORIGIN },
    bounded,
  ).catch(() => null);
  if (foreign) {
    out.foreignOriginAccepted = foreign.accepted;
    out.allowOriginStar = foreign.allowOriginStar;
    out.sessionIdInUrl = foreign.sessionIdInUrl;
  }
  if (!hasAuthConfigured(target) && opts.healthOk !== undefined) {
    out.unauthenticated = opts.healthOk;
  } else {
    const plain = await ask(fetcher, target.url, withoutCredentials, bounded).catch(() => null);
    if (plain) {
      out.unauthenticated = plain.succeeded;
      out.sessionIdInUrl ??= plain.sessionIdInUrl;
    }
  }
  out.oauthMetadata = await hasProtectedResourceMetadata(fetcher, target.url, () =>
    bounded(Math.min(WELL_KNOWN_MS, opts.timeoutMs)),
  );
  return out;
}

interface Asked {
  /** The server answered with 2xx instead of refusing. */
  accepted: boolean;
  /** initialize and tools/list both returned results (streamable HTTP), or initialize was accepted (SSE). */
  succeeded: boolean;
  allowOriginStar: boolean;
  sessionIdInUrl: boolean | null;
}

async function askStreamable(
  fetcher: Fetcher,
  url: string,
  headers: Record<string, string>,
  bounded: () => AbortSignal,
): Promise<Asked> {
  const init = await postRpc(fetcher, url, initializeBody(1), headers, bounded());
  const asked: Asked = {
    accepted: init.status >= 200 && init.status < 300,
    succeeded: false,
    allowOriginStar: init.allowOriginStar,
    sessionIdInUrl: null,
  };
  if (!init.result) {
    if (init.sessionId) await deleteSession(fetcher, url, init.sessionId, headers, bounded());
    return asked;
  }
  const session: Record<string, string> = {
    ...headers,
    'mcp-protocol-version': PROBE_PROTOCOL,
    ...(init.sessionId ? { 'mcp-session-id': init.sessionId } : {}),
  };
  try {
    await postRpc(
      fetcher,
      url,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      session,
      bounded(),
    );
    const list = await postRpc(
      fetcher,
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      session,
      bounded(),
    );
    asked.succeeded = list.result;
  } finally {
    if (init.sessionId) await deleteSession(fetcher, url, init.sessionId, headers, bounded());
  }
  return asked;
}

/** Legacy SSE: the stream must open and hand out an endpoint, and the endpoint must accept initialize. */
async function askSse(
  fetcher: Fetcher,
  url: string,
  headers: Record<string, string>,
  bounded: () => AbortSignal,
): Promise<Asked> {
  const opened = await openSseEndpoint(fetcher, url, headers, bounded());
  try {
    const asked: Asked = {
      accepted: opened.status >= 200 && opened.status < 300,
      succeeded: false,
      allowOriginStar: opened.allowOriginStar,
      sessionIdInUrl: null,
    };
    if (!opened.endpoint) return asked;
    asked.sessionIdInUrl = [...opened.endpoint.searchParams.keys()].some((k) =>
      /^session[-_]?id$/i.test(k),
    );
    // The answer to initialize arrives on the stream; the POST's 2xx is what accepting it looks like.
    const init = await postRpc(
      fetcher,
      opened.endpoint.href,
      initializeBody(1),
      headers,
      bounded(),
    );
    asked.accepted = init.status >= 200 && init.status < 300;
    asked.succeeded = asked.accepted;
    asked.allowOriginStar ||= init.allowOriginStar;
    return asked;
  } finally {
    opened.close();
  }
}

/** RFC 9728: the metadata lives at the origin's well-known path, or with the resource path appended. */
async function hasProtectedResourceMetadata(
  fetcher: Fetcher,
  url: string,
  bounded: () => AbortSignal,
): Promise<boolean | null> {
  const u = new URL(url);
  const paths = [
    '/.well-known/oauth-protected-resource',
    ...(u.pathname !== '/'
      ? [`/.well-known/oauth-protected-resource${u.pathname.replace(/\/$/, '')}`]
      : []),
  ];
  let decided = false;
  for (const path of paths) {
    try {
      const res = await fetcher(new URL(path, u.origin).href, {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: bounded(),
      });
      decided = true;
      const ok = res.ok && (res.headers.get('content-type') ?? '').includes('json');
      await res.body?.cancel().catch(() => {});
      if (ok) return true;
    } catch {
      // unreachable or refused: this path says nothing
    }
  }
  return decided ? false : null;
}
