import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, createKey } from '../helpers/auth.ts';
import { configFile, startReceiver, type Receiver } from '../alerts/helpers.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { openSignedIn, seedSpans, startUi, type UiPage, type UiServer } from '../helpers/ui.ts';
import {
  failSession,
  fireUntilSeen,
  gql,
  inbox,
  waitForAlerts,
} from '../helpers/ui-seed-alerts.ts';

/**
 * The alerts page (docs/ui.md#alerts) in Chromium against a real server: alerts raised by ingest
 * from failing spans, a chat receiver on 127.0.0.1 (opened to the outbound policy by the config),
 * and every effect checked over the API.
 */
describe('alerts page (browser)', () => {
  let ui: UiServer;
  let receiver: Receiver;
  let viewerKey: string;
  const admin = bootstrapKey();

  beforeAll(async () => {
    receiver = await startReceiver();
    ui = await startUi({
      SPYGLASS_API_KEYS: admin,
      SPYGLASS_CONFIG: configFile(),
      SPYGLASS_RATE_LIMITS: 'off',
    });
    viewerKey = (await createKey(ui.base, admin, { role: 'viewer' })).key;
    // 4 alerts: agent_failure (warning) for each session, budget_exceeded (critical) for s2.
    await failSession(ui.base, admin, 'alert-s1');
    await failSession(ui.base, admin, 'alert-s2', 'budget_exceeded');
    await failSession(ui.base, admin, 'alert-s3');
    await waitForAlerts(ui.base, admin, 4);
  });
  afterAll(async () => {
    await ui?.close();
    await receiver?.close();
  });

  const open = async (path: string, key = admin): Promise<UiPage> => {
    return openSignedIn(ui, key, path, 'Alerts');
  };
  const rows = (p: UiPage) => p.page.locator('table.alerts-table tbody tr');
  const clean = (p: UiPage) => {
    expect(p.consoleErrors.join(' / ')).toBe('');
    expect(p.foreignRequests).toEqual([]);
  };
  const idOf = async (session: string, type = 'agent_failure') =>
    (await inbox(ui.base, admin)).find((a) => a.session_id === session && a.type === type)!.id;

  it('renders the inbox newest first, each alert linked to its session; one h1, no axe violation', async () => {
    const p = await open('/alerts');
    try {
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(4);
      expect(await p.page.locator('h1').count()).toBe(1);
      expect(
        await rows(p)
          .filter({ hasText: 'alert-s1' })
          .getByRole('link', { name: 'Session alert-s1', exact: true })
          .getAttribute('href'),
      ).toBe('/sessions/alert-s1');
      // Newest first: the last seeded session's alert is at the top.
      expect(await rows(p).first().innerText()).toContain('alert-s3');
      await p.screenshot('alerts');
      expect(await p.axe()).toEqual([]);
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('filters by severity and type into the URL and narrows the list', async () => {
    const p = await open('/alerts');
    try {
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(4);
      await p.page.getByLabel('Severity').selectOption('critical');
      await expect.poll(() => rows(p).count()).toBe(1);
      expect(new URL(p.page.url()).searchParams.get('severity')).toBe('critical');
      expect(await rows(p).first().innerText()).toContain('budget_exceeded');
      await p.page.getByLabel('Severity').selectOption('');
      await p.page.getByLabel('Type').selectOption('agent_failure');
      await expect.poll(() => rows(p).count()).toBe(3);
      expect(p.page.url()).toContain('type=agent_failure');
      expect(p.page.url()).not.toContain('severity=');
      // The URL alone restores the filter.
      await p.page.goto(`${ui.base}/alerts?type=budget_exceeded`);
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(1);
      expect(await p.page.getByLabel('Type').inputValue()).toBe('budget_exceeded');
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('acknowledging an alert in the page acknowledges it over the API', async () => {
    const id = await idOf('alert-s1');
    const p = await open('/alerts');
    try {
      await rows(p)
        .filter({ hasText: 'alert-s1' })
        .getByRole('link', { name: /failed in session alert-s1/ })
        .click();
      expect(new URL(p.page.url()).searchParams.get('alert')).toBe(id);
      const detail = p.page.locator('.alert-detail');
      await detail.getByRole('heading', { level: 2, name: /alert-s1/ }).waitFor();
      await detail.getByRole('button', { name: 'Acknowledge' }).click();
      await expect.poll(() => detail.locator('.status').innerText()).toBe('acknowledged');
      await expect
        .poll(async () => (await inbox(ui.base, admin)).find((a) => a.id === id)?.status)
        .toBe('acknowledged');
      expect(await detail.getByRole('button', { name: 'Acknowledge' }).isDisabled()).toBe(true);
      expect(await p.axe()).toEqual([]);
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('a shared link opens the alert; snoozing shows until when, as the API says', async () => {
    const id = await idOf('alert-s3');
    const p = await open(`/alerts?alert=${id}`);
    try {
      const detail = p.page.locator('.alert-detail');
      await detail.getByRole('heading', { level: 2, name: /alert-s3/ }).waitFor();
      await detail.getByLabel('Snooze for').selectOption({ label: '4 hours' });
      await detail.getByRole('button', { name: 'Snooze' }).click();
      await expect.poll(() => detail.locator('.status').innerText()).toContain('snoozed until');
      const stored = (await inbox(ui.base, admin)).find((a) => a.id === id)!;
      expect(stored.status).toBe('snoozed');
      const until = Date.parse(stored.snoozed_until!);
      expect(Math.abs(until - Date.now() - 240 * 60_000)).toBeLessThan(5 * 60_000);
      expect(await detail.locator('.status time').getAttribute('datetime')).toBe(
        new Date(until).toISOString(),
      );
      await p.screenshot('alert-detail');
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('an alert fired while the page is open appears at the top, announced by a toast', async () => {
    const p = await open('/alerts');
    try {
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(4);
      const toast = p.page.locator('.toasts[role="status"] .toast');
      // Toasts sit over the page: their host is fixed, so an arrival moves no content.
      expect(await p.page.locator('.toasts').evaluate((el) => getComputedStyle(el).position)).toBe(
        'fixed',
      );
      const fired = await fireUntilSeen(
        ui.base,
        admin,
        'alert-live',
        async () => (await toast.count()) > 0,
      );
      const last = fired.at(-1)!;
      await expect.poll(() => rows(p).first().innerText()).toContain(last);
      await expect.poll(() => toast.filter({ hasText: last }).count()).toBe(1);
      expect(await rows(p).count()).toBeGreaterThan(4);
      const id = await idOf(last);
      expect(
        await toast
          .filter({ hasText: last })
          .getByRole('link', { name: 'Open the alert' })
          .getAttribute('href'),
      ).toBe(`/alerts?alert=${id}`);
      expect(await p.axe()).toEqual([]);
      const n = await toast.count();
      await toast
        .filter({ hasText: last })
        .getByRole('button', { name: /Dismiss/ })
        .click();
      await expect.poll(() => toast.count()).toBe(n - 1);
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('the toast shows on other pages too, linking to the alert', async () => {
    const p = await openSignedIn(ui, admin, '/sessions', 'Sessions');
    try {
      const toast = p.page.locator('.toasts .toast');
      await fireUntilSeen(ui.base, admin, 'alert-away', async () => (await toast.count()) > 0);
      await toast.first().getByRole('link', { name: 'Open the alert' }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
      await p.page
        .locator('.alert-detail')
        .getByRole('heading', { level: 2, name: /alert-away/ })
        .waitFor();
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('saves a webhook, shows the policy refusal, and the test button shows the delivery result', async () => {
    const p = await open('/alerts');
    try {
      const config = p.page.locator('.alert-config');
      const url = config.getByLabel('New webhook URL');
      await url.fill('http://example.com/hook');
      await config.getByRole('button', { name: 'Save webhook' }).click();
      await expect
        .poll(() => config.getByRole('alert').innerText())
        .toContain('refused by the outbound URL policy');
      await url.fill(receiver.url);
      await config.getByRole('button', { name: 'Save webhook' }).click();
      await expect.poll(() => config.getByText('Webhook saved.').count()).toBe(1);
      expect(await config.locator('.alert-webhook code').innerText()).toContain('1234');
      const before = receiver.bodies.length;
      await config.getByRole('button', { name: 'Send a test message' }).click();
      const result = config.getByTestId('webhook-test-result');
      await expect.poll(() => result.innerText()).toContain('Delivered');
      expect(receiver.bodies.length).toBe(before + 1);
      receiver.script.push(500);
      await config.getByRole('button', { name: 'Send a test message' }).click();
      await expect.poll(() => result.innerText()).toBe('Not delivered: webhook answered HTTP 500');
      const saved = await gql(
        ui.base,
        admin,
        '{ alertConfig { chatWebhookConfigured chatWebhookSource } }',
      );
      expect(saved.data.alertConfig).toEqual({
        chatWebhookConfigured: true,
        chatWebhookSource: 'settings',
      });
      // Toggle a type off and save.
      await config.getByRole('checkbox', { name: 'high_latency' }).uncheck();
      await config.getByRole('button', { name: 'Save alert types' }).click();
      await expect
        .poll(
          async () =>
            (await gql(ui.base, admin, '{ alertConfig { alertTypes } }')).data.alertConfig
              .alertTypes.high_latency,
        )
        .toBe(false);
      expect(await p.axe()).toEqual([]);
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('a viewer reads alerts and the config but cannot change either', async () => {
    const id = await idOf('alert-s2');
    const p = await open(`/alerts?alert=${id}`, viewerKey);
    try {
      const detail = p.page.locator('.alert-detail');
      await detail.getByRole('heading', { level: 2, name: /alert-s2/ }).waitFor();
      expect(await detail.getByRole('button').count()).toBe(0);
      const config = p.page.locator('.alert-config');
      await config.getByRole('checkbox', { name: 'mcp_down' }).waitFor();
      expect(await config.getByRole('checkbox', { name: 'mcp_down' }).isDisabled()).toBe(true);
      expect(await config.getByRole('button').count()).toBe(0);
      expect(await config.getByLabel('New webhook URL').count()).toBe(0);
      // The server refuses the viewer anyway.
      const refused = await gql(
        ui.base,
        viewerKey,
        'mutation { saveAlertConfig(alertTypes: {mcp_down: false}) { alertTypes } }',
      );
      expect(refused.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(await p.axe()).toEqual([]);
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('resolves an alert after a confirm step, as the API then says', async () => {
    const id = await idOf('alert-s2', 'budget_exceeded');
    const p = await open(`/alerts?alert=${id}`);
    try {
      const detail = p.page.locator('.alert-detail');
      await detail.getByRole('heading', { level: 2, name: /budget exceeded/ }).waitFor();
      await detail.getByRole('button', { name: 'Resolve…' }).click();
      expect((await inbox(ui.base, admin)).find((a) => a.id === id)?.status).toBe('firing');
      await detail.getByRole('button', { name: 'Confirm resolve' }).click();
      await expect.poll(() => detail.locator('.status').innerText()).toBe('resolved');
      expect((await inbox(ui.base, admin)).find((a) => a.id === id)?.status).toBe('resolved');
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('pages: 25 alerts, then older ones on request', async () => {
    const total = (await inbox(ui.base, admin)).length;
    await seedSpans(
      ui.base,
      Array.from({ length: 25 }, (_, i) =>
        nativeSpan({
          session_id: `alert-page-${i}`,
          trace_id: `trace-page-${i}`,
          status: 'error',
          error: 'boom',
          output_result: null,
          health_tag: 'tool_failure',
        }),
      ),
      admin,
    );
    await expect.poll(async () => (await inbox(ui.base, admin)).length).toBe(total + 25);
    const all = (await inbox(ui.base, admin)).length;
    const p = await open('/alerts?status=all');
    try {
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(25);
      await p.page.getByRole('button', { name: 'Load older alerts' }).click();
      await expect.poll(() => rows(p).count()).toBe(all);
      expect(await p.page.getByRole('button', { name: 'Load older alerts' }).count()).toBe(0);
      clean(p);
    } finally {
      await p.close();
    }
  });
});
