import type { InstanceSettings } from '../model/settings.ts';
import { builder } from './builder.ts';

/** Instance settings: the same service and rules as /api/settings (SettingsService audits changes). */
const SettingsRef = builder.objectRef<InstanceSettings>('Settings').implement({
  description: 'Instance settings (docs/ingest.md#redaction)',
  fields: (t) => ({ redactPayloads: t.exposeBoolean('redactPayloads') }),
});

builder.queryField('settings', (t) =>
  t.field({
    type: SettingsRef,
    resolve: (_r, _a, ctx) => ctx.services.settings.get(ctx.principal),
  }),
);

builder.mutationField('updateSettings', (t) =>
  t.field({
    type: SettingsRef,
    description: 'Changes the settings given (an admin bound to no project)',
    args: { redactPayloads: t.arg.boolean({ required: false }) },
    resolve: (_r, args, ctx) =>
      ctx.services.settings.update(ctx.principal, {
        redactPayloads: args.redactPayloads ?? undefined,
      }),
  }),
);
