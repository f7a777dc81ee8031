import { randomUUID } from 'node:crypto';
import { SpyglassError, notFound } from '../errors.ts';
import type { Db } from '../store/db.ts';
import {
  findKey,
  findKeyByHash,
  hasActiveKeys,
  insertKey,
  listKeys,
  revokeKey,
  revokeUserKeys,
  touchKey,
  unusableKeyIds,
  type ApiKeyRow,
} from '../store/keys-repo.ts';
import type { Principal, Role } from './principal.ts';
import { generateApiKey, keyPrefix, sha256 } from './secrets.ts';

const CACHE_MS = 10_000;
/** Unknown keys are remembered this long: a client retrying a wrong key costs one lookup, not one per request. */
const NEGATIVE_CACHE_MS = 5_000;
const MAX_CACHED = 10_000;
/** Every stored key has this shape (docs/auth.md#api-keys); anything else is refused without a lookup. */
const KEY_SHAPE = /^sg_[0-9a-f]{64}$/;

export interface CreateKeyInput {
  name: string;
  role: Role;
  projectId: string | null;
  expiresAt: Date | null;
  userId?: string | null;
  createdBy: string;
}

/**
 * API keys (docs/auth.md#api-keys): created and shown once, stored as SHA-256, verified per request with a
 * short cache. Revocation through this process takes effect at once; through another process
 * within CACHE_MS.
 */
export class KeyService {
  private readonly bootstrap: Map<string, Principal>;
  private cache = new Map<string, { principal: Principal | null; until: number }>();
  /** Kept apart from `cache` so a flood of made-up keys cannot push valid keys out. */
  private unknown = new Map<string, number>();
  private storedKeys: { value: boolean; until: number } = { value: false, until: 0 };
  private readonly revokedListeners = new Set<(keyIds: string[]) => void>();

  constructor(
    private readonly db: Db,
    bootstrapKeys: string[],
  ) {
    this.bootstrap = new Map(
      bootstrapKeys.map((k) => [
        sha256(k),
        { role: 'admin', projectId: null, actor: `key:${keyPrefix(k)}`, keyId: null } as Principal,
      ]),
    );
  }

  async create(input: CreateKeyInput): Promise<{ key: string; record: ApiKeyRow }> {
    const key = generateApiKey();
    const record = await insertKey(this.db, {
      id: randomUUID(),
      name: input.name,
      prefix: keyPrefix(key),
      keyHash: sha256(key),
      role: input.role,
      projectId: input.projectId,
      userId: input.userId ?? null,
      createdBy: input.createdBy,
      expiresAt: input.expiresAt,
    });
    this.storedKeys = { value: true, until: Date.now() + CACHE_MS };
    this.unknown.delete(record.keyHash);
    return { key, record };
  }

  list(projectId: string | null): Promise<ApiKeyRow[]> {
    return listKeys(this.db, projectId);
  }

  find(id: string): Promise<ApiKeyRow | undefined> {
    return findKey(this.db, id);
  }

  /** `projectId` set: the caller may only revoke keys bound to that project. */
  async revoke(id: string, projectId: string | null): Promise<ApiKeyRow> {
    const row = await findKey(this.db, id);
    if (!row || (projectId !== null && row.projectId !== projectId))
      throw notFound(`no API key ${id}`);
    if (row.revokedAt) throw new SpyglassError('conflict', `API key ${id} is already revoked`);
    await revokeKey(this.db, id);
    this.cache.delete(row.keyHash);
    this.storedKeys.until = 0;
    this.announceRevoked([id]);
    return row;
  }

  /** Calls `fn` with the ids of keys revoked through this process, at once (live streams end). */
  onRevoked(fn: (keyIds: string[]) => void): () => void {
    this.revokedListeners.add(fn);
    return () => this.revokedListeners.delete(fn);
  }

  /** Of these key ids, those no longer usable (revoked anywhere, expired, deleted). */
  unusable(ids: string[]): Promise<string[]> {
    return unusableKeyIds(this.db, ids);
  }

  private announceRevoked(ids: string[]): void {
    if (ids.length > 0) for (const fn of this.revokedListeners) fn(ids);
  }

  /** Forgets every cached verification: after keys were revoked in bulk (a project deleted). */
  forgetCached(): void {
    this.cache.clear();
    this.unknown.clear();
    this.storedKeys.until = 0;
  }

  async revokeForUser(userId: string): Promise<void> {
    const revoked = await revokeUserKeys(this.db, userId);
    for (const { hash } of revoked) this.cache.delete(hash);
    this.storedKeys.until = 0;
    this.announceRevoked(revoked.map((r) => r.id));
  }

  /** A key's principal when it is known valid without asking the database (bootstrap or cached). */
  knownValid(presented: string): Principal | undefined {
    const hash = sha256(presented);
    const hit = this.cache.get(hash);
    return (
      this.bootstrap.get(hash) ??
      (hit && hit.until > Date.now() ? (hit.principal ?? undefined) : undefined)
    );
  }

  /** The principal a presented key stands for, or null when it is unknown, expired or revoked. */
  async verify(presented: string): Promise<Principal | null> {
    const hash = sha256(presented);
    if (!this.bootstrap.has(hash) && !KEY_SHAPE.test(presented)) return null;
    return this.verifyHash(hash);
  }

  /** verify() by the key's SHA-256 (a dashboard session signed in with a key keeps only that). */
  async verifyHash(hash: string): Promise<Principal | null> {
    const boot = this.bootstrap.get(hash);
    if (boot) return boot;
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > now) return hit.principal;
    const unknownUntil = this.unknown.get(hash);
    if (unknownUntil !== undefined && unknownUntil > now) return null;
    const row = await findKeyByHash(this.db, hash);
    if (!row) {
      remember(this.unknown, hash, now + NEGATIVE_CACHE_MS);
      return null;
    }
    const usable = !row.revokedAt && (!row.expiresAt || row.expiresAt.getTime() > now);
    const principal: Principal | null = usable
      ? {
          role: row.role as Role,
          projectId: row.projectId,
          actor: `key:${row.prefix}`,
          keyId: row.id,
        }
      : null;
    // Best effort, at most once per cache period: a lost update only makes last_used_at older.
    if (usable) touchKey(this.db, row.id).catch(() => undefined);
    // An expiring key is cached no longer than it lives.
    remember(this.cache, hash, {
      principal,
      until: Math.min(now + CACHE_MS, row.expiresAt?.getTime() ?? Infinity),
    });
    return principal;
  }

  /** True when any key exists (environment or stored and usable): then auth cannot be off. */
  async anyKeys(): Promise<boolean> {
    if (this.bootstrap.size > 0) return true;
    const now = Date.now();
    if (this.storedKeys.until > now) return this.storedKeys.value;
    const value = await hasActiveKeys(this.db);
    this.storedKeys = { value, until: now + 2_000 };
    return value;
  }
}

/** Map.set that drops the oldest entry when full: bounded memory, and no wholesale clear. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_CACHED) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
