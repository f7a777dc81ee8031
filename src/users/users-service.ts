import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.ts';
import type { KeyService } from '../auth/key-service.ts';
import { enforce } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { generateToken, hashPassword, maskEmail, sha256, verifyPassword } from '../auth/secrets.ts';
import { SpyglassError, notFound } from '../errors.ts';
import { isRole, type Invitation, type Role, type User } from '../model/user.ts';
import type { Db } from '../store/db.ts';
import {
  countActiveAdmins,
  findOpenInvite,
  findUser,
  findUserByEmail,
  insertInvite,
  insertUser,
  listUsers,
  markInviteAccepted,
  updateUser,
  type UserRow,
} from '../store/users-repo.ts';

const INVITE_TTL_MS = 72 * 3600 * 1000;
const MAX_FAILED_LOGINS = 5;
const LOCKOUT_MS = 15 * 60 * 1000;
const MIN_PASSWORD = 12;

/**
 * Users, invitations, roles and login checks (docs/auth.md#users). There is always at least one admin.
 * Managing users needs an admin bound to no project, whichever adapter asks.
 */
export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly keys: KeyService,
    private readonly audit: AuditLog,
  ) {}

  async list(by: Principal): Promise<User[]> {
    enforce(by, 'global-admin');
    return (await listUsers(this.db)).map(toPublic);
  }

  async get(by: Principal, id: string): Promise<User> {
    enforce(by, 'global-admin');
    return toPublic(await this.mustFind(id));
  }

  /** The caller's own user (any role may read itself); null when the caller is not a user (a key, local mode). */
  async self(by: Principal): Promise<User | null> {
    const user = by.userId ? await findUser(this.db, by.userId) : undefined;
    return user ? toPublic(user) : null;
  }

  /**
   * Creates (or re-invites) a user; the token is returned once and only its hash is stored.
   * `role` is one of ROLES, checked here: adapters that cannot declare the enum pass text.
   */
  async invite(by: Principal, email: string, role: string = 'viewer'): Promise<Invitation> {
    enforce(by, 'global-admin');
    const normalized = email.trim().toLowerCase();
    if (!EMAIL.test(email))
      throw invalid('email', 'Input should be an e-mail address', 'value_error');
    const wanted = parseRole(role);
    let user = await findUserByEmail(this.db, normalized);
    if (user && user.status !== 'invited')
      throw new SpyglassError(
        'conflict',
        `a user with that e-mail already exists (${user.status})`,
      );
    user ??= await insertUser(this.db, {
      id: randomUUID(),
      email: normalized,
      role: wanted,
      status: 'invited',
    });
    if (user.role !== wanted) user = (await updateUser(this.db, user.id, { role: wanted })) ?? user;
    const token = generateToken();
    const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
    await insertInvite(this.db, {
      id: randomUUID(),
      userId: user.id,
      tokenHash: sha256(token),
      expiresAt,
    });
    this.audit.record(by, 'user.invited', `user:${maskEmail(normalized)}`);
    return { user: toPublic(user), inviteToken: token, expiresAt };
  }

  async acceptInvite(token: string, password: string): Promise<User> {
    if (password.length < MIN_PASSWORD) {
      throw new SpyglassError('validation', 'weak password', {
        issues: [
          {
            loc: ['body', 'password'],
            msg: `Password must have at least ${MIN_PASSWORD} characters`,
            type: 'string_too_short',
          },
        ],
      });
    }
    const invite = await findOpenInvite(this.db, sha256(token));
    if (!invite || !(await markInviteAccepted(this.db, invite.id)))
      throw new SpyglassError('bad_request', 'invalid or expired invitation');
    const user = await updateUser(this.db, invite.userId, {
      passwordHash: await hashPassword(password),
      status: 'active',
      failedLogins: 0,
      lockedUntil: null,
    });
    if (!user) throw new SpyglassError('bad_request', 'invalid or expired invitation');
    this.audit.record(`user:${maskEmail(user.email)}`, 'user.invite_accepted', `user:${user.id}`);
    return toPublic(user);
  }

  /** Login check with lockout after repeated failures. The same answer for unknown users and bad passwords. */
  async verify(email: string, password: string): Promise<User> {
    const user = await findUserByEmail(this.db, email.trim().toLowerCase());
    const actor = `user:${maskEmail(email.trim().toLowerCase())}`;
    if (user?.lockedUntil && user.lockedUntil.getTime() > Date.now()) {
      this.audit.record(actor, 'user.login_failed', `user:${user.id}`, 'failure');
      throw new SpyglassError(
        'locked',
        'account locked after repeated failed logins; try again later',
        {
          retryAfter: Math.ceil((user.lockedUntil.getTime() - Date.now()) / 1000),
        },
      );
    }
    // Hash even without a user, so the answer's timing does not tell which e-mails exist.
    const ok =
      (await verifyPassword(password, user?.passwordHash ?? (await this.decoyHash()))) &&
      user?.status === 'active' &&
      user.passwordHash !== null;
    if (!user || !ok) {
      if (user) {
        const failed = user.failedLogins + 1;
        await updateUser(this.db, user.id, {
          failedLogins: failed,
          lockedUntil: failed >= MAX_FAILED_LOGINS ? new Date(Date.now() + LOCKOUT_MS) : null,
        });
      }
      this.audit.record(
        actor,
        'user.login_failed',
        user ? `user:${user.id}` : 'user:unknown',
        'failure',
      );
      throw new SpyglassError('unauthenticated', 'invalid e-mail or password');
    }
    const updated = await updateUser(this.db, user.id, {
      failedLogins: 0,
      lockedUntil: null,
      lastLoginAt: new Date(),
    });
    this.audit.record(actor, 'user.login', `user:${user.id}`);
    return toPublic(updated ?? user);
  }

  /** `requested` is one of ROLES, checked here; the last active admin keeps the role (409). */
  async changeRole(by: Principal, id: string, requested: string): Promise<User> {
    enforce(by, 'global-admin');
    const role = parseRole(requested);
    const user = await this.mustFind(id);
    if (user.role === 'admin' && role !== 'admin') await this.keepAnAdmin(user);
    const updated = await updateUser(this.db, id, { role });
    this.audit.record(by, 'user.role_changed', `user:${id} ${user.role}->${role}`);
    return toPublic(updated ?? user);
  }

  /** Deactivates the user and revokes their keys. */
  async deactivate(by: Principal, id: string): Promise<User> {
    enforce(by, 'global-admin');
    const user = await this.mustFind(id);
    if (user.role === 'admin') await this.keepAnAdmin(user);
    const updated = await updateUser(this.db, id, { status: 'deactivated' });
    await this.keys.revokeForUser(id);
    this.audit.record(by, 'user.deactivated', `user:${id}`);
    return toPublic(updated ?? user);
  }

  private decoy: Promise<string> | undefined;
  private decoyHash(): Promise<string> {
    this.decoy ??= hashPassword(generateToken());
    return this.decoy;
  }

  private async keepAnAdmin(user: UserRow): Promise<void> {
    if (user.status === 'active' && (await countActiveAdmins(this.db)) <= 1) {
      throw new SpyglassError('conflict', 'refusing to remove the last admin');
    }
  }

  private async mustFind(id: string): Promise<UserRow> {
    const user = await findUser(this.db, id);
    if (!user) throw notFound(`no user ${id}`);
    return user;
  }
}

function toPublic(u: UserRow): User {
  return {
    id: u.id,
    email: u.email,
    role: u.role as Role,
    status: u.status,
    createdAt: u.createdAt,
    lastLoginAt: u.lastLoginAt,
  };
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

function parseRole(v: string): Role {
  if (!isRole(v)) throw invalid('role', "Input should be 'admin' or 'viewer'", 'enum');
  return v;
}

function invalid(field: string, msg: string, type: string): SpyglassError {
  return new SpyglassError('validation', msg, { issues: [{ loc: ['body', field], msg, type }] });
}
