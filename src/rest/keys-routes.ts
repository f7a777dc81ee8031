import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import { toApiKeyJson } from '../model/api-key.ts';
import { ROLES, type Role } from '../model/user.ts';
import type { KeyAdmin, KeyRequest } from '../auth/key-admin.ts';
import { bodyOptional, typed } from '../http/route-schema.ts';

/** The body's shape; KeyAdmin checks the values (role, expiry range, project) for every adapter. */
const CreateBody = T.Object({
  name: T.String(),
  role: T.Optional(T.Unsafe<Role>({ enum: [...ROLES] })),
  project_id: T.Optional(T.Unsafe<string | null>({ type: ['string', 'null'] })),
  expires_at: T.Optional(T.Unsafe<string | null>({ type: ['string', 'null'] })),
  /** A number, or a numeric string (the CLI passes its option through). */
  expires_in_days: T.Optional(
    T.Unsafe<number | string | null>({ type: ['number', 'string', 'null'] }),
  ),
});

/** The body in domain terms: the expiry as a Date or a number (NaN for text that is none: a 422). */
function keyRequest(b: Static<typeof CreateBody>): KeyRequest {
  const days = b.expires_in_days;
  return {
    name: b.name,
    role: b.role,
    projectId: b.project_id,
    expiresAt: typeof b.expires_at === 'string' ? new Date(b.expires_at) : b.expires_at,
    expiresInDays: typeof days === 'string' ? (days.trim() === '' ? NaN : Number(days)) : days,
  };
}

/** The services these routes use, and nothing else. */
export interface KeyRoutesDeps {
  keyAdmin: KeyAdmin;
}

/** API key management (docs/auth.md); the rules live in KeyAdmin (src/auth/key-admin.ts). */
export function registerKeyRoutes(app: FastifyInstance, s: KeyRoutesDeps): void {
  const r = typed(app);
  const admin = { access: 'admin' as const };
  r.post(
    '/api/auth/api-keys',
    { config: admin, preValidation: bodyOptional, schema: { body: CreateBody } },
    async (req, reply) => {
      const { key, apiKey } = await s.keyAdmin.create(req.principal, keyRequest(req.body));
      return reply.status(201).send({ ...toApiKeyJson(apiKey), key });
    },
  );

  r.get(
    '/api/auth/api-keys',
    { config: admin, schema: { querystring: T.Object({ project_id: T.Optional(T.String()) }) } },
    async (req) => (await s.keyAdmin.list(req.principal, req.query.project_id)).map(toApiKeyJson),
  );

  r.delete(
    '/api/auth/api-keys/:id',
    { config: admin, schema: { params: T.Object({ id: T.String() }) } },
    async (req) => {
      await s.keyAdmin.revoke(req.principal, req.params.id);
      return { id: req.params.id, revoked: true };
    },
  );
}
