import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { ROLES, toUserJson, type Role } from '../model/user.ts';
import type { UsersService } from '../users/users-service.ts';
import { typed } from '../http/route-schema.ts';

const Text = T.String({ minLength: 1 });
const UserParams = T.Object({ user_id: T.String() });
const RoleField = T.Unsafe<Role>({ enum: [...ROLES] });

/** The services these routes use, and nothing else. */
export interface UserRoutesDeps {
  users: UsersService;
}

/** Users and invitations (docs/auth.md#users): user management is for global admins (UsersService decides). */
export function registerUserRoutes(app: FastifyInstance, s: UserRoutesDeps): void {
  const r = typed(app);
  const admin = { access: 'global-admin' as const };
  r.get('/api/users', { config: admin }, async (req) =>
    (await s.users.list(req.principal)).map(toUserJson),
  );

  r.post(
    '/api/users/invite',
    {
      config: admin,
      schema: { body: T.Object({ email: Text, role: T.Optional(RoleField) }) },
    },
    async (req, reply) => {
      const invitation = await s.users.invite(
        req.principal,
        req.body.email,
        req.body.role ?? 'viewer',
      );
      return reply.status(201).send({
        user: toUserJson(invitation.user),
        invite_token: invitation.inviteToken,
        expires_at: invitation.expiresAt.toISOString(),
      });
    },
  );

  r.patch(
    '/api/users/:user_id/role',
    { config: admin, schema: { params: UserParams, body: T.Object({ role: RoleField }) } },
    async (req) =>
      toUserJson(await s.users.changeRole(req.principal, req.params.user_id, req.body.role)),
  );

  r.delete('/api/users/:user_id', { config: admin, schema: { params: UserParams } }, async (req) =>
    toUserJson(await s.users.deactivate(req.principal, req.params.user_id)),
  );

  // Public: the invitation token or the password is the credential. Limited per client address (docs/auth.md#rate-limits).
  r.post(
    '/api/users/accept-invite',
    {
      config: { access: 'public', rateLimitKey: 'acceptInvite' },
      schema: { body: T.Object({ token: Text, password: Text }) },
    },
    async (req) => toUserJson(await s.users.acceptInvite(req.body.token, req.body.password)),
  );

  r.post(
    '/api/users/verify',
    {
      config: { access: 'public', rateLimitKey: 'verify' },
      schema: { body: T.Object({ email: Text, password: Text }) },
    },
    async (req) => ({
      ok: true,
      user: toUserJson(await s.users.verify(req.body.email, req.body.password)),
    }),
  );
}
