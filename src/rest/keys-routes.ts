import type { FastifyInstance } from 'fastify';
import { toApiKeyJson } from '../model/api-key.ts';
import type { Services } from '../services.ts';

/** API key management (docs/auth.md); the rules live in KeyAdmin (src/auth/key-admin.ts). */
export function registerKeyRoutes(app: FastifyInstance, s: Services): void {
  app.post('/api/auth/api-keys', { config: { access: 'admin' } }, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { key, apiKey } = await s.keyAdmin.create(req.principal, {
      name: body.name,
      role: body.role,
      projectId: body.project_id,
      expiresAt: body.expires_at,
      expiresInDays: body.expires_in_days,
    });
    return reply.status(201).send({ ...toApiKeyJson(apiKey), key });
  });

  app.get('/api/auth/api-keys', { config: { access: 'admin' } }, async (req) => {
    const q = req.query as { project_id?: string };
    return (await s.keyAdmin.list(req.principal, q.project_id)).map(toApiKeyJson);
  });

  app.delete('/api/auth/api-keys/:id', { config: { access: 'admin' } }, async (req) => {
    const { id } = req.params as { id: string };
    await s.keyAdmin.revoke(req.principal, id);
    return { id, revoked: true };
  });
}
