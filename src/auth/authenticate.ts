import proxyaddr from 'proxy-addr';
import { SpyglassError } from '../errors.ts';
import type { Limiter } from '../scale/limits/limiter.ts';
import type { KeyService } from './key-service.ts';
import { LOCAL_ADMIN, type Principal, type Role } from './principal.ts';
import { maskEmail } from './secrets.ts';

export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The TCP peer, before any X-Forwarded-For. */
  remoteAddress: string;
  /** The client as far as trusted proxies tell (HTTP's req.ip); failed attempts count against it. */
  clientAddress?: string;
  /**
   * A dashboard session token (docs/ui.md#auth), passed only by adapters that accept the session
   * cookie and have checked the request cannot be forged cross-site. A key, when present, wins.
   */
  sessionToken?: string;
}

/** Resolves a dashboard session token (src/auth/ui-sessions.ts). */
export interface SessionResolver {
  resolve(token: string): Promise<Principal | null>;
}

/** Failed authentications one client address may make per minute before it is refused outright. */
export interface FailureThrottle {
  limiter: Limiter;
  perMinute: number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
const TRUST_CACHE_SIZE = 4096;
/** The longest textual IP address (an IPv4-mapped IPv6 one); a zone index may make it longer, uncached. */
const MAX_ADDRESS_CHARS = 45;

/**
 * Resolves who is calling, for HTTP and gRPC alike (docs/auth.md#modes). Auth is off only when no key
 * exists anywhere and the server listens on loopback; then every caller is a local admin.
 * X-User-Id/X-User-Role count only from trusted proxies, and can only narrow the key's role.
 */
export class Authenticator {
  private readonly trusted: (addr: string, i: number) => boolean;
  private readonly trustCache = new Map<string, boolean>();
  readonly loopbackOnly: boolean;

  constructor(
    private readonly keys: KeyService,
    listenHost: string,
    trustedProxyCidrs: string[],
    private readonly throttle?: FailureThrottle,
    private readonly sessions?: SessionResolver,
  ) {
    this.trusted = proxyaddr.compile(trustedProxyCidrs);
    this.loopbackOnly = LOOPBACK_HOSTS.has(listenHost);
  }

  /**
   * Whether `address` is a trusted proxy's. Asked several times a request (authentication, the
   * client address of the rate limits and connection caps, Fastify's req.ip), and each answer
   * parsed the address again: the answers are kept, for as many addresses as TRUST_CACHE_SIZE
   * (any peer picks its own address; an X-Forwarded-For hop anything), and only for strings
   * short enough to be an address.
   */
  isTrustedProxy(address: string): boolean {
    const known = this.trustCache.get(address);
    if (known !== undefined) return known;
    const trusted = this.trusted(address, 0);
    if (address.length <= MAX_ADDRESS_CHARS) {
      if (this.trustCache.size >= TRUST_CACHE_SIZE) this.trustCache.clear();
      // A copy: an X-Forwarded-For hop is a slice of the whole header, which a key would keep alive.
      this.trustCache.set(Buffer.from(address, 'latin1').toString('latin1'), trusted);
    }
    return trusted;
  }

  async authDisabled(): Promise<boolean> {
    return this.loopbackOnly && !(await this.keys.anyKeys());
  }

  /**
   * Refuses (429) an address that has failed too often this minute before looking its key up, so
   * guessing keys costs no database lookups; each failure counts against the address.
   */
  async authenticate(req: AuthRequest): Promise<Principal> {
    if (!this.throttle) return this.resolve(req);
    const { limiter, perMinute } = this.throttle;
    const who = req.clientAddress ?? req.remoteAddress;
    const before = await limiter.peek('auth-failures', perMinute, who);
    // A key already known valid costs no lookup, so its owner is not locked out by a neighbour
    // behind the same address (one agent with a revoked key on a shared host, say).
    const presented = readKey(req.headers);
    if (!before.ok && !(presented && this.keys.knownValid(presented)))
      throw tooManyFailures(before.limit, before.retryAfterSeconds);
    try {
      return await this.resolve(req);
    } catch (err) {
      if (err instanceof SpyglassError && err.code === 'unauthenticated')
        await limiter.take('auth-failures', perMinute, who);
      throw err;
    }
  }

  private async resolve(req: AuthRequest): Promise<Principal> {
    const presented = readKey(req.headers);
    let principal: Principal | null;
    if (presented) {
      principal = await this.keys.verify(presented);
      if (!principal) throw unauthenticated('invalid, expired or revoked API key');
    } else if (req.sessionToken && this.sessions) {
      principal = await this.sessions.resolve(req.sessionToken);
      if (!principal) throw unauthenticated('the dashboard session has expired or was signed out');
      // A session is the user's or the key's own principal: proxy headers do not apply to it.
      return principal;
    } else if (await this.authDisabled()) {
      principal = LOCAL_ADMIN;
    } else {
      throw unauthenticated('an API key is required (X-API-Key or Authorization: Bearer)');
    }
    return this.isTrustedProxy(req.remoteAddress)
      ? applyProxyUser(principal, req.headers)
      : principal;
  }
}

/** The presented API key: `X-API-Key`, else `Authorization: Bearer`. */
export function readKey(headers: AuthRequest['headers']): string | undefined {
  const direct = header(headers, 'x-api-key');
  if (direct) return direct.trim();
  const auth = header(headers, 'authorization');
  const m = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  return m?.[1];
}

function applyProxyUser(p: Principal, headers: AuthRequest['headers']): Principal {
  const userId = header(headers, 'x-user-id');
  const role = header(headers, 'x-user-role')?.toLowerCase();
  if (!userId && !role) return p;
  const narrowed: Role = role === 'viewer' || p.role === 'viewer' ? 'viewer' : p.role;
  return { ...p, role: narrowed, actor: userId ? `user:${maskEmail(userId)}` : p.actor };
}

function header(headers: AuthRequest['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function tooManyFailures(limit: number, retryAfter: number): SpyglassError {
  return new SpyglassError(
    'rate_limited',
    `Rate limit exceeded: ${limit} failed authentications per 1 minute`,
    { retryAfter },
  );
}

function unauthenticated(msg: string): SpyglassError {
  return new SpyglassError('unauthenticated', msg);
}
