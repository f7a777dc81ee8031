import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export function registerSettingsRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/settings', async () => s.settings.get());
  app.put('/api/settings', { config: { access: 'global-admin' } }, async (req) => {
    const updated = await s.settings.update(req.body);
    s.audit.record(
      req.principal,
      'settings.updated',
      `settings:${Object.keys(req.body as object).join(',')}`,
    );
    return updated;
  });
}
