import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ADMIN, type Principal } from '../../src/auth/principal.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { fireInput } from './helpers.ts';
import { issuesOf } from '../helpers/issues.ts';

/**
 * AlertService takes domain inputs (a number of minutes, an AlertConfigPatch) and checks their values
 * itself, so every adapter (REST, GraphQL, CLI) gets the same 422 issues; called here directly.
 */
describe('AlertService checks its domain inputs', () => {
  let app: InProcessApp;
  const viewer: Principal = { role: 'viewer', projectId: null, actor: 'test', keyId: null };

  beforeAll(async () => {
    app = await startInProcessApp();
  }, 120_000);
  afterAll(async () => app?.close());

  it('snoozes only for the allowed lengths', async () => {
    const alert = await app.services.alerts.fire(fireInput({ dedupKey: 'snooze:direct' }));
    const snooze = (minutes: number) =>
      app.services.alerts.move(LOCAL_ADMIN, alert!.id, { action: 'snooze', minutes });
    for (const minutes of [7, 0, -15, 60.5, 100_000, NaN])
      expect(await issuesOf(snooze(minutes)), String(minutes)).toEqual([
        {
          loc: ['body', 'minutes'],
          msg: 'Input should be one of 15, 60, 240, 1440 (minutes)',
          type: 'enum',
        },
      ]);
    expect((await snooze(240)).status).toBe('snoozed');
  });

  it('saves a config patch only with known alert types and an allowed webhook', async () => {
    const alerts = app.services.alerts;
    expect(
      await issuesOf(
        alerts.saveConfig(LOCAL_ADMIN, { alertTypes: { mcp_down: false, nope: true } }),
      ),
    ).toEqual([expect.objectContaining({ loc: ['body', 'alert_types', 'nope'], type: 'enum' })]);
    expect(
      await issuesOf(alerts.saveConfig(LOCAL_ADMIN, { chatWebhook: 'https://10.0.0.1/hook' })),
    ).toEqual([expect.objectContaining({ loc: ['body', 'chat_webhook'], type: 'url_policy' })]);
    expect(
      await issuesOf(
        alerts.saveConfig(LOCAL_ADMIN, {
          chatWebhook: `https://hooks.example.com/${'w'.repeat(70_000)}`,
        }),
      ),
    ).toEqual([expect.objectContaining({ loc: ['body'], type: 'too_large' })]);
    // Nothing of the refused patches was saved; a viewer may not save at all.
    expect((await alerts.getConfig(LOCAL_ADMIN)).alertTypes.mcp_down).toBe(true);
    await expect(
      alerts.saveConfig(viewer, { alertTypes: { mcp_down: false } }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    const saved = await alerts.saveConfig(LOCAL_ADMIN, {
      alertTypes: { mcp_down: false },
      chatWebhook: ' https://hooks.example.com/services/T0/B0/abcd ',
    });
    expect(saved).toMatchObject({
      alertTypes: { mcp_down: false },
      chatWebhookSource: 'settings',
      chatWebhookMasked: expect.stringMatching(/abcd$/),
    });
    // "" clears the saved webhook; an empty patch keeps the rest.
    expect((await alerts.saveConfig(LOCAL_ADMIN, { chatWebhook: '' })).chatWebhookConfigured).toBe(
      false,
    );
    expect((await alerts.saveConfig(LOCAL_ADMIN, {})).alertTypes.mcp_down).toBe(false);
  });

  it('GraphQL builds the same patch from its arguments: the same checks, the same issues', async () => {
    const save = (args: string) =>
      app.gql(`mutation { saveAlertConfig(${args}) { alertTypes chatWebhookConfigured } }`);
    const unknown = await save('alertTypes: {mcp_down: true, nope: true}');
    expect(unknown.errors[0].extensions).toMatchObject({
      code: 'VALIDATION',
      issues: [{ loc: ['body', 'alert_types', 'nope'], type: 'enum' }],
    });
    for (const bad of ['alertTypes: {mcp_down: "no"}', 'alertTypes: [true]', 'alertTypes: 5'])
      expect((await save(bad)).errors[0].extensions, bad).toMatchObject({
        code: 'VALIDATION',
        issues: [{ loc: ['body', 'alert_types'], type: 'dict_type' }],
      });
    const saved = await save('alertTypes: {mcp_down: true}, chatWebhook: null');
    expect(saved.data.saveAlertConfig).toMatchObject({
      alertTypes: { mcp_down: true },
      chatWebhookConfigured: false,
    });
  });
});
