import type { FastifyInstance } from 'fastify';
import { SpyglassError } from '../errors.ts';
import { toUserJson } from '../model/user.ts';
import type { Services } from '../services.ts';

/** Users and invitations (docs/auth.md#users): user management is for global admins (UsersService decides). */
export function registerUserRoutes(app: FastifyInstance, s: Services): void {
  const admin = { config: { access: 'global-admin' as const } };
  app.get('/api/users', admin, async (req) => (await s.users.list(req.principal)).map(toUserJson));

  app.post('/api/users/invite', admin, async (req, reply) => {
    const body = object(req.body);
    const invitation = await s.users.invite(
      req.principal,
      requireString(body, 'email'),
      body.role ?? 'viewer',
    );
    return reply.status(201).send({
      user: toUserJson(invitation.user),
      invite_token: invitation.inviteToken,
      expires_at: invitation.expiresAt.toISOString(),
    });
  });

  app.patch('/api/users/:user_id/role', admin, async (req) => {
    const { user_id } = req.params as { user_id: string };
    return toUserJson(await s.users.changeRole(req.principal, user_id, object(req.body).role));
  });

  app.delete('/api/users/:user_id', admin, async (req) => {
    const { user_id } = req.params as { user_id: string };
    return toUserJson(await s.users.deactivate(req.principal, user_id));
  });

  // Public: the invitation token or the password is the credential. Limited per client address (docs/auth.md#rate-limits).
  app.post(
    '/api/users/accept-invite',
    { config: { access: 'public', rateLimitKey: 'acceptInvite' } },
    async (req) => {
      const body = object(req.body);
      return toUserJson(
        await s.users.acceptInvite(requireString(body, 'token'), requireString(body, 'password')),
      );
    },
  );

  app.post(
    '/api/users/verify',
    { config: { access: 'public', rateLimitKey: 'verify' } },
    async (req) => {
      const body = object(req.body);
      return {
        ok: true,
        user: toUserJson(
          await s.users.verify(requireString(body, 'email'), requireString(body, 'password')),
        ),
      };
    },
  );
}

function object(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid(null, 'Input should be an object', 'dict_type');
  return body as Record<string, unknown>;
}

function requireString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (typeof v !== 'string' || v === '')
    throw invalid(
      field,
      v === undefined ? 'Field required' : 'Input should be a non-empty string',
      v === undefined ? 'missing' : 'string_type',
    );
  return v;
}

function invalid(field: string | null, msg: string, type: string): SpyglassError {
  return new SpyglassError('validation', msg, {
    issues: [{ loc: field ? ['body', field] : ['body'], msg, type }],
  });
}
