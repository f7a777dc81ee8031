import type { FastifyInstance } from 'fastify';
import type { Role } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';
import type { Services } from '../services.ts';

/** Users and invitations (spec §4.7): user management is for global admins. */
export function registerUserRoutes(app: FastifyInstance, s: Services): void {
  const admin = { config: { access: 'global-admin' as const } };
  app.get('/api/users', admin, async () => s.users.list());

  app.post('/api/users/invite', admin, async (req, reply) => {
    const body = object(req.body);
    const email = requireString(body, 'email');
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw invalid('email', 'Input should be an e-mail address', 'value_error');
    const role = parseRole(body.role ?? 'viewer');
    return reply.status(201).send(await s.users.invite(req.principal, email, role));
  });

  app.patch('/api/users/:user_id/role', admin, async (req) => {
    const { user_id } = req.params as { user_id: string };
    return s.users.changeRole(req.principal, user_id, parseRole(object(req.body).role));
  });

  app.delete('/api/users/:user_id', admin, async (req) => {
    const { user_id } = req.params as { user_id: string };
    return s.users.deactivate(req.principal, user_id);
  });

  // Public: the invitation token or the password is the credential. Limited per client address (spec §8).
  app.post('/api/users/accept-invite', { config: { access: 'public', rateLimitKey: 'acceptInvite' } }, async (req) => {
    const body = object(req.body);
    return s.users.acceptInvite(requireString(body, 'token'), requireString(body, 'password'));
  });

  app.post('/api/users/verify', { config: { access: 'public', rateLimitKey: 'verify' } }, async (req) => {
    const body = object(req.body);
    return { ok: true, user: await s.users.verify(requireString(body, 'email'), requireString(body, 'password')) };
  });
}

function object(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid(null, 'Input should be an object', 'dict_type');
  return body as Record<string, unknown>;
}

function requireString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (typeof v !== 'string' || v === '') throw invalid(field, v === undefined ? 'Field required' : 'Input should be a non-empty string', v === undefined ? 'missing' : 'string_type');
  return v;
}

function parseRole(v: unknown): Role {
  if (v !== 'admin' && v !== 'viewer') throw invalid('role', "Input should be 'admin' or 'viewer'", 'enum');
  return v;
}

function invalid(field: string | null, msg: string, type: string): SpyglassError {
  return new SpyglassError('validation', msg, { issues: [{ loc: field ? ['body', field] : ['body'], msg, type }] });
}
