import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { toSettingsJson } from '../model/settings.ts';
import type { SettingsService } from '../settings/settings-service.ts';
import { typed } from '../http/route-schema.ts';

/** Every setting, each optional; an unknown one is a 422 (docs/ingest.md#redaction). */
const SettingsBody = T.Object(
  { redact_payloads: T.Optional(T.Boolean()) },
  { additionalProperties: false },
);

/** The services these routes use, and nothing else. */
export interface SettingsRoutesDeps {
  settings: SettingsService;
}

/** Instance settings; SettingsService decides who changes them and audits each change. */
export function registerSettingsRoutes(app: FastifyInstance, s: SettingsRoutesDeps): void {
  const r = typed(app);
  r.get('/api/settings', async (req) => toSettingsJson(s.settings.get(req.principal)));
  r.put(
    '/api/settings',
    { config: { access: 'global-admin' }, schema: { body: SettingsBody } },
    async (req) =>
      toSettingsJson(
        await s.settings.update(req.principal, { redactPayloads: req.body.redact_payloads }),
      ),
  );
}
