import type { FastifyRequest } from 'fastify';
import { scopeProject } from '../auth/principal.ts';
import { SpyglassError, type ValidationIssue } from '../errors.ts';

/**
 * What POST /api/health/check and POST /api/security/scan act on: an optional JSON body
 * `{server_name, project_id}` (or the same as query parameters), scoped to the caller's project.
 */
export function serverRequest(req: FastifyRequest): {
  projectId: string | null;
  serverName: string | undefined;
} {
  const body = req.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new SpyglassError('validation', 'invalid body', {
      issues: [{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }],
    });
  }
  const b = body as { server_name?: unknown; project_id?: unknown };
  const issues: ValidationIssue[] = [];
  for (const key of ['server_name', 'project_id'] as const) {
    if (b[key] !== undefined && b[key] !== null && typeof b[key] !== 'string')
      issues.push({ loc: ['body', key], msg: 'Input should be a string', type: 'string_type' });
  }
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid body', { issues });
  const q = req.query as Record<string, string | undefined>;
  const projectId = scopeProject(
    req.principal,
    (b.project_id as string | undefined) ?? q.project_id,
  );
  const serverName = ((b.server_name as string | null | undefined) ?? q.server_name) || undefined;
  return { projectId, serverName };
}
