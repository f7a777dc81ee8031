import type { InstanceSettings } from '../settings/settings-service.ts';
import { builder, requireAdmin } from './builder.ts';
import { enforce } from '../auth/access.ts';

const SettingsRef = builder.objectRef<InstanceSettings>('Settings').implement({
  description: 'Instance settings (spec §2.12)',
  fields: (t) => ({ redactPayloads: t.exposeBoolean('redact_payloads') }),
});

builder.queryField('settings', (t) =>
  t.field({ type: SettingsRef, resolve: (_r, _a, ctx) => ctx.services.settings.get() }),
);

builder.mutationField('updateSettings', (t) =>
  t.field({
    type: SettingsRef,
    args: { redactPayloads: t.arg.boolean({ required: false }) },
    resolve: async (_r, args, ctx) => {
      requireAdmin(ctx);
      enforce(ctx.principal, 'global-admin');
      const patch =
        args.redactPayloads === null || args.redactPayloads === undefined
          ? {}
          : { redact_payloads: args.redactPayloads };
      const updated = await ctx.services.settings.update(patch);
      ctx.services.audit.record(
        ctx.principal,
        'settings.updated',
        `settings:${Object.keys(patch).join(',')}`,
      );
      return updated;
    },
  }),
);
