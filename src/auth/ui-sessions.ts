import type { AuditLog } from '../audit/audit-log.ts';
import { SpyglassError } from '../errors.ts';
import type { Db } from '../store/db.ts';
import {
  deleteExpiredUiSessions,
  deleteUiSession,
  extendUiSession,
  findLiveUiSession,
  insertUiSession,
} from '../store/ui-sessions-repo.ts';
import { findUser } from '../store/users-repo.ts';
import type { UsersService } from '../users/users-service.ts';
import type { KeyService } from './key-service.ts';
import type { Principal, Role } from './principal.ts';
import { generateToken, maskEmail, sha256 } from './secrets.ts';

/** The cookie that carries a dashboard session (docs/ui.md#auth). */
export const SESSION_COOKIE = 'spyglass_session';
/** Idle expiry: each request moves it forward (sliding). */
export const SESSION_IDLE_MS = 12 * 3600 * 1000;
/** Absolute expiry: signed out after this whatever the activity. */
export const SESSION_MAX_MS = 7 * 24 * 3600 * 1000;
/** Sliding writes at most this often per session. */
const EXTEND_EVERY_MS = 60 * 1000;

export interface SignedIn {
  /** The cookie's value: returned once, only its hash is stored. */
  token: string;
  principal: Principal;
  expiresAt: Date;
}

/**
 * Dashboard sign-in (docs/ui.md#auth): a user's e-mail and password (UsersService.verify: lockout,
 * audit) or an API key creates a server-side session; the cookie holds a random token whose
 * SHA-256 is the row's key. A session resolves to the same principal the API would give: the
 * user's current role (global, like every user) or the key's role and project scope, and ends
 * when the user is deactivated or the key revoked or expired.
 */
export class UiSessions {
  private readonly extended = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly users: UsersService,
    private readonly keys: KeyService,
    private readonly audit: AuditLog,
  ) {}

  async loginUser(email: string, password: string): Promise<SignedIn> {
    const user = await this.users.verify(email, password);
    return this.open({ userId: user.id }, userPrincipal(user.id, user.email, user.role));
  }

  async loginKey(key: string): Promise<SignedIn> {
    const principal = await this.keys.verify(key.trim());
    if (!principal) {
      this.audit.record('anonymous', 'ui.login_failed', 'api_key', 'failure');
      throw new SpyglassError('unauthenticated', 'invalid, expired or revoked API key');
    }
    return this.open({ keyHash: sha256(key.trim()) }, principal);
  }

  /** The principal of a live session, or null (unknown, expired, user deactivated, key revoked). */
  async resolve(token: string): Promise<Principal | null> {
    const hash = sha256(token);
    const row = await findLiveUiSession(this.db, hash);
    if (!row) return null;
    let principal: Principal | null = null;
    if (row.userId) {
      const user = await findUser(this.db, row.userId);
      if (user?.status === 'active')
        principal = userPrincipal(user.id, user.email, user.role as Role);
    } else if (row.keyHash) {
      principal = await this.keys.verifyHash(row.keyHash);
    }
    if (!principal) {
      await deleteUiSession(this.db, hash);
      return null;
    }
    const now = Date.now();
    if ((this.extended.get(hash) ?? 0) + EXTEND_EVERY_MS < now) {
      this.extended.set(hash, now);
      if (this.extended.size > 10_000) this.extended.clear();
      await extendUiSession(this.db, hash, new Date(now + SESSION_IDLE_MS));
    }
    return principal;
  }

  /** Ends the session of `token` (signing out); unknown tokens are ignored. */
  async logout(token: string | undefined, by: Principal): Promise<void> {
    if (!token) return;
    const row = await deleteUiSession(this.db, sha256(token));
    this.extended.delete(sha256(token));
    if (row) this.audit.record(by, 'ui.logout', row.userId ? `user:${row.userId}` : 'api_key');
  }

  private async open(
    owner: { userId?: string; keyHash?: string },
    principal: Principal,
  ): Promise<SignedIn> {
    await deleteExpiredUiSessions(this.db);
    const token = generateToken();
    const now = Date.now();
    const expiresAt = new Date(now + SESSION_IDLE_MS);
    await insertUiSession(this.db, {
      tokenHash: sha256(token),
      userId: owner.userId ?? null,
      keyHash: owner.keyHash ?? null,
      expiresAt,
      absoluteExpiresAt: new Date(now + SESSION_MAX_MS),
    });
    this.audit.record(
      principal,
      'ui.login',
      owner.userId ? `user:${owner.userId}` : principal.actor,
    );
    return { token, principal, expiresAt };
  }
}

function userPrincipal(id: string, email: string, role: Role): Principal {
  return { role, projectId: null, actor: `user:${maskEmail(email)}`, keyId: null, userId: id };
}

/** The session token in a Cookie header, if any. */
export function sessionTokenFrom(cookieHeader: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(cookieHeader) ? cookieHeader.join('; ') : cookieHeader;
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(v) ? v : undefined;
    }
  }
  return undefined;
}

/** The Set-Cookie value for a new session, or (token null) one that deletes the cookie. */
export function sessionCookie(token: string | null, secure: boolean): string {
  const attrs = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  // Max-Age is the absolute expiry; the server slides its own idle expiry within it.
  const life = token ? `Max-Age=${Math.floor(SESSION_MAX_MS / 1000)}` : 'Max-Age=0';
  return [`${SESSION_COOKIE}=${token ?? ''}`, life, ...attrs].join('; ');
}
