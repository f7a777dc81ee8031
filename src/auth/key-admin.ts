import type { AuditLog } from '../audit/audit-log.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import type { ApiKey, CreatedApiKey } from '../model/api-key.ts';
import { isRole, type Role } from '../model/user.ts';
import type { ApiKeyRow } from '../store/keys-repo.ts';
import { enforce } from './access.ts';
import type { KeyService } from './key-service.ts';
import { scopeProject, type Principal } from './principal.ts';

/** The furthest expiry a key may have (100 years): later dates overflow dates in storage and JSON. */
const MAX_EXPIRY_DAYS = 36_500;

/** What a caller asks for, typed by its adapter; every value is checked here, for every adapter. */
export interface KeyRequest {
  name: string;
  /** One of ROLES (default viewer): text, since GraphQL and the CLI pass it through. */
  role?: string | null | undefined;
  projectId?: string | null | undefined;
  /** Wins over expiresInDays; an Invalid Date (text an adapter could not read) is a 422. */
  expiresAt?: Date | null | undefined;
  /** More than 0 and at most MAX_EXPIRY_DAYS; NaN (text an adapter could not read) is a 422. */
  expiresInDays?: number | null | undefined;
}

/**
 * Managing API keys, for every adapter (REST, GraphQL, CLI): admins only, a project-bound admin only
 * its project's keys, every change audited. Checking a presented key is KeyService's job.
 */
export class KeyAdmin {
  constructor(
    private readonly deps: {
      keys: KeyService;
      audit: AuditLog;
      projectExists: (id: string) => Promise<boolean>;
    },
  ) {}

  async create(by: Principal, request: KeyRequest): Promise<CreatedApiKey> {
    enforce(by, 'admin');
    const input = parseKeyRequest(request);
    const projectId = scopeProject(by, input.projectId);
    if (projectId !== null && !(await this.deps.projectExists(projectId))) {
      throw invalid([
        { loc: ['body', 'project_id'], msg: `No project ${projectId}`, type: 'value_error' },
      ]);
    }
    const { key, record } = await this.deps.keys.create({
      ...input,
      projectId,
      createdBy: by.actor,
    });
    this.deps.audit.record(by, 'api_key.created', `api_key:${record.prefix}`, 'success', projectId);
    return { key, apiKey: toApiKey(record) };
  }

  async list(by: Principal, projectId?: string | null): Promise<ApiKey[]> {
    enforce(by, 'admin');
    return (await this.deps.keys.list(scopeProject(by, projectId))).map(toApiKey);
  }

  async get(by: Principal, id: string): Promise<ApiKey> {
    enforce(by, 'admin');
    const row = await this.deps.keys.find(id);
    if (!row || (by.projectId !== null && row.projectId !== by.projectId))
      throw notFound(`no API key ${id}`);
    return toApiKey(row);
  }

  async revoke(by: Principal, id: string): Promise<ApiKey> {
    enforce(by, 'admin');
    const row = await this.deps.keys.revoke(id, by.projectId);
    this.deps.audit.record(
      by,
      'api_key.revoked',
      `api_key:${row.prefix}`,
      'success',
      row.projectId,
    );
    return toApiKey({ ...row, revokedAt: row.revokedAt ?? new Date() });
  }
}

function parseKeyRequest(r: KeyRequest): {
  name: string;
  role: Role;
  projectId: string | null;
  expiresAt: Date | null;
} {
  const issues: ValidationIssue[] = [];
  const name = r.name.trim();
  if (!name) issues.push({ loc: ['body', 'name'], msg: 'Field required', type: 'missing' });
  const role = r.role ?? 'viewer';
  if (!isRole(role))
    issues.push({
      loc: ['body', 'role'],
      msg: "Input should be 'admin' or 'viewer'",
      type: 'enum',
    });
  let expiresAt: Date | null = null;
  if (r.expiresAt !== undefined && r.expiresAt !== null) {
    expiresAt = r.expiresAt;
    if (Number.isNaN(expiresAt.getTime()))
      issues.push({
        loc: ['body', 'expires_at'],
        msg: 'Input should be an ISO 8601 datetime',
        type: 'datetime_parsing',
      });
    else if (expiresAt.getTime() > Date.now() + MAX_EXPIRY_DAYS * 86_400_000)
      issues.push({
        loc: ['body', 'expires_at'],
        msg: `Input should be at most ${MAX_EXPIRY_DAYS} days ahead`,
        type: 'less_than_equal',
      });
  } else if (r.expiresInDays !== undefined && r.expiresInDays !== null) {
    const days = r.expiresInDays;
    if (!Number.isFinite(days) || days <= 0 || days > MAX_EXPIRY_DAYS)
      issues.push({
        loc: ['body', 'expires_in_days'],
        msg: `Input should be a number greater than 0 and at most ${MAX_EXPIRY_DAYS}`,
        type: 'number_range',
      });
    else expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  if (issues.length > 0) throw invalid(issues);
  return { name, role: role as Role, projectId: r.projectId || null, expiresAt };
}

function invalid(issues: ValidationIssue[]): SpyglassError {
  return new SpyglassError('validation', 'invalid key', { issues });
}

function toApiKey(r: ApiKeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    role: r.role as Role,
    projectId: r.projectId,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    revokedAt: r.revokedAt,
    lastUsedAt: r.lastUsedAt,
  };
}
