import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../errors.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * Origin and Host checks for browser-reachable endpoints (docs/auth.md#browsers-origin-and-host): GraphQL over HTTP and
 * WebSocket, and SSE, in every mode. A request that carries a browser's marks (`Origin`, or the
 * `Sec-Fetch-*` headers every current browser sends) must come from the same origin, a loopback
 * origin or one of `http.allowed_origins`, and must name a Host we answer to: a loopback name, an
 * IP address, or the host of an allowed origin. The Host rule is what stops DNS rebinding, where
 * the page is "same-origin" with a name that points at 127.0.0.1. Returns why a request is
 * refused, or null. Clients that are not browsers (CLI, SDK, proxies) send neither mark and are
 * not affected: they hold no ambient credentials a page could borrow.
 */
export function browserRefusal(headers: Headers, allowedOrigins: readonly string[]): string | null {
  const origin = first(headers.origin);
  if (origin === undefined && first(headers['sec-fetch-site']) === undefined) return null;
  const host = first(headers.host);
  const hostName = host ? hostnameOf(`http://${host}`) : null;
  const allowed = new Set(
    allowedOrigins.map((o) => originOf(o)).filter((o): o is string => o !== null),
  );
  const allowedHosts = new Set(
    allowedOrigins.map((o) => hostnameOf(o)).filter((h): h is string => h !== null),
  );
  if (hostName === null) return 'the Host header is missing or malformed';
  if (!isLoopbackName(hostName) && isIP(unbracket(hostName)) === 0 && !allowedHosts.has(hostName)) {
    return `Host ${hostName} is not a loopback name, an IP address or the host of an allowed origin (http.allowed_origins)`;
  }
  if (origin === undefined) return null;
  const normalized = originOf(origin);
  if (normalized === null) return 'Origin is not allowed (an opaque or malformed origin)';
  const originUrl = new URL(normalized);
  if (originUrl.host === new URL(`http://${host}`).host) return null;
  if (isLoopbackName(originUrl.hostname) || allowed.has(normalized)) return null;
  return `Origin ${normalized} is not allowed (same origin, loopback, or http.allowed_origins)`;
}

/** Fastify onRequest hook for a browser-reachable route: 403 when browserRefusal() says so. */
export function checkBrowserOrigin(allowedOrigins: readonly string[]) {
  return async (req: FastifyRequest): Promise<void> => {
    const refusal = browserRefusal(req.headers, allowedOrigins);
    if (refusal !== null) throw forbidden(`cross-origin request refused: ${refusal}`);
  };
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The same rule for every state-changing request (POST, PUT, PATCH, DELETE), REST and ingest
 * alike, in one onRequest hook before authentication: a page on another site must not scan,
 * check, discover, send test alerts or write spans through a local-mode server (where every
 * caller is an admin) or ride on a proxy's headers. Reads are left to the routes that stream or
 * answer GraphQL (they check themselves); a cross-site page cannot read a REST answer anyway.
 */
export function refuseCrossSiteWrites(
  app: FastifyInstance,
  allowedOrigins: readonly string[],
): void {
  const check = checkBrowserOrigin(allowedOrigins);
  app.addHook('onRequest', async (req) => {
    if (STATE_CHANGING.has(req.method)) await check(req);
  });
}

function isLoopbackName(hostname: string): boolean {
  const h = unbracket(hostname).toLowerCase();
  return (
    h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
  );
}

function unbracket(h: string): string {
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

function hostnameOf(value: string): string | null {
  try {
    const h = new URL(value).hostname;
    return h === '' ? null : h.toLowerCase();
  } catch {
    return null;
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The extra rule for requests that authenticate with the dashboard's session cookie
 * (docs/ui.md#auth), on top of SameSite=Strict and browserRefusal(): the request must come from
 * this very origin (Origin's host equal to Host, and Sec-Fetch-Site, when sent, `same-origin`),
 * and over HTTP it must be one no page can send without a CORS preflight this server never
 * grants: a JSON body, or the `X-Requested-With` header. A WebSocket cannot carry a custom header,
 * so there the same-origin Origin is required. Returns why the cookie is refused, or null.
 */
export function cookieSessionRefusal(
  headers: Headers,
  opts: { method: string; websocket?: boolean },
): string | null {
  const origin = first(headers.origin);
  const host = first(headers.host);
  const site = first(headers['sec-fetch-site']);
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `a session cookie is accepted from this origin only (Sec-Fetch-Site: ${site})`;
  if (origin !== undefined) {
    const normalized = originOf(origin);
    if (normalized === null || !host || new URL(normalized).host !== host.toLowerCase())
      return 'a session cookie is accepted from this origin only';
  } else if (opts.websocket) {
    return 'a WebSocket authenticated by the session cookie must carry its Origin';
  }
  if (opts.websocket) return null;
  if (first(headers['x-requested-with'])) return null;
  const type = first(headers['content-type'])?.split(';')[0]?.trim().toLowerCase();
  if (
    opts.method === 'POST' &&
    (type === 'application/json' || type === 'application/graphql-response+json')
  )
    return null;
  return 'a request authenticated by the session cookie must send JSON or the X-Requested-With header';
}
