import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export function registerSettingsRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/settings', async () => s.settings.get());
  app.put('/api/settings', { config: { adminOnly: true } }, async (req) => s.settings.update(req.body));
}
