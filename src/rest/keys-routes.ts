import type { FastifyInstance } from 'fastify';
import { scopeProject, type Role } from '../auth/principal.ts';
import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { ApiKeyRow } from '../store/keys-repo.ts';
import type { Services } from '../services.ts';

/** The furthest expiry a key may have (100 years): later dates overflow dates in storage and JSON. */
const MAX_EXPIRY_DAYS = 36_500;

/** API key management (decisions §2). A project-bound admin manages only its project's keys. */
export function registerKeyRoutes(app: FastifyInstance, s: Services): void {
  app.post('/api/auth/api-keys', { config: { access: 'admin' } }, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const input = parseKeyInput(body);
    const projectId = scopeProject(req.principal, input.projectId);
    if (projectId !== null && !(await s.projects.exists(projectId))) throw new SpyglassError('validation', 'invalid key', { issues: [{ loc: ['body', 'project_id'], msg: `No project ${projectId}`, type: 'value_error' }] });
    const { key, record } = await s.keys.create({ ...input, projectId, createdBy: req.principal.actor });
    s.audit.record(req.principal, 'api_key.created', `api_key:${record.prefix}`, 'success', projectId);
    return reply.status(201).send({ ...toKeyJson(record), key });
  });

  app.get('/api/auth/api-keys', { config: { access: 'admin' } }, async (req) => {
    const q = req.query as { project_id?: string };
    return (await s.keys.list(scopeProject(req.principal, q.project_id))).map(toKeyJson);
  });

  app.delete('/api/auth/api-keys/:id', { config: { access: 'admin' } }, async (req) => {
    const { id } = req.params as { id: string };
    const row = await s.keys.revoke(id, req.principal.projectId);
    s.audit.record(req.principal, 'api_key.revoked', `api_key:${row.prefix}`, 'success', row.projectId);
    return { id, revoked: true };
  });
}

export function parseKeyInput(body: Record<string, unknown>): { name: string; role: Role; projectId: string | null; expiresAt: Date | null } {
  const issues: ValidationIssue[] = [];
  const name = typeof body.name === 'string' && body.name.trim() ? body.name.trim() : '';
  if (!name) issues.push({ loc: ['body', 'name'], msg: 'Field required', type: 'missing' });
  const role = body.role ?? 'viewer';
  if (role !== 'admin' && role !== 'viewer') issues.push({ loc: ['body', 'role'], msg: "Input should be 'admin' or 'viewer'", type: 'enum' });
  const projectId = body.project_id ?? null;
  if (projectId !== null && typeof projectId !== 'string') issues.push({ loc: ['body', 'project_id'], msg: 'Input should be a string', type: 'string_type' });
  let expiresAt: Date | null = null;
  if (body.expires_at !== undefined && body.expires_at !== null) {
    expiresAt = new Date(String(body.expires_at));
    if (Number.isNaN(expiresAt.getTime())) issues.push({ loc: ['body', 'expires_at'], msg: 'Input should be an ISO 8601 datetime', type: 'datetime_parsing' });
    else if (expiresAt.getTime() > Date.now() + MAX_EXPIRY_DAYS * 86_400_000) issues.push({ loc: ['body', 'expires_at'], msg: `Input should be at most ${MAX_EXPIRY_DAYS} days ahead`, type: 'less_than_equal' });
  } else if (body.expires_in_days !== undefined) {
    const raw = body.expires_in_days;
    // A number, or a numeric string (the CLI passes its option through).
    const days = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isFinite(days) || days <= 0 || days > MAX_EXPIRY_DAYS) issues.push({ loc: ['body', 'expires_in_days'], msg: `Input should be a number greater than 0 and at most ${MAX_EXPIRY_DAYS}`, type: 'number_range' });
    else expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid key', { issues });
  return { name, role: role as Role, projectId: projectId as string | null, expiresAt };
}

export function toKeyJson(r: ApiKeyRow) {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    role: r.role,
    project_id: r.projectId,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
    revoked_at: r.revokedAt?.toISOString() ?? null,
    last_used_at: r.lastUsedAt?.toISOString() ?? null,
  };
}
