import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, createKey, createProject } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { configFile, fireInput, startReceiver, type Receiver } from './helpers.ts';

/** Auth, scoping, validation and the outbound policy of /api/alerts/* on a server that opens no private range. */
describe('alerts API: auth, scoping, validation, webhook policy', () => {
  let server: InProcessApp;
  let receiver: Receiver;
  const admin = bootstrapKey();
  let viewer: string;
  let otherAdmin: string;
  let alertId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    // The config-file webhook points at the receiver, but 127.0.0.1 is not opened: sends are refused.
    server = await startInProcessApp({
      SPYGLASS_API_KEYS: admin,
      SPYGLASS_RATE_LIMITS: 'off',
      SPYGLASS_CONFIG: configFile(`alerts:\n  chat_webhook: ${receiver.url}\n`, false),
    });
    viewer = (await createKey(server.httpUrl, admin, { role: 'viewer' })).key;
    await createProject(server.httpUrl, admin, 'other');
    otherAdmin = (await createKey(server.httpUrl, admin, { role: 'admin', project_id: 'other' }))
      .key;
    alertId = (await server.services.alerts.fire(fireInput()))!.id;
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  const as = (key: string, method: string, path: string, body?: unknown) =>
    call(server.httpUrl, method, path, body === undefined ? { key } : { key, body });

  it('viewers read but every write is 403', async () => {
    expect((await as(viewer, 'GET', '/api/alerts/inbox')).json.map((a: any) => a.id)).toEqual([
      alertId,
    ]);
    expect((await as(viewer, 'GET', '/api/alerts/counts')).status).toBe(200);
    expect((await as(viewer, 'GET', '/api/alerts/config')).status).toBe(200);
    for (const [path, body] of [
      [`/api/alerts/${alertId}/ack`, {}],
      [`/api/alerts/${alertId}/resolve`, {}],
      [`/api/alerts/${alertId}/snooze`, { minutes: 15 }],
      ['/api/alerts/config', { alert_types: {} }],
      ['/api/alerts/test', {}],
    ] as const) {
      expect((await as(viewer, 'POST', path, body)).status).toBe(403);
    }
    const gql = await as(viewer, 'POST', '/graphql', {
      query: `mutation { acknowledgeAlert(id: "${alertId}") { id } }`,
    });
    expect(JSON.stringify(gql.json.errors)).toContain('read-only');
    expect((await as(admin, 'GET', '/api/alerts/inbox')).json[0].status).toBe('firing');
  });

  it("another project's alert id is 404 and its inbox is empty", async () => {
    expect((await as(otherAdmin, 'POST', `/api/alerts/${alertId}/ack`)).status).toBe(404);
    expect((await as(otherAdmin, 'GET', '/api/alerts/inbox')).json).toEqual([]);
    expect((await as(otherAdmin, 'GET', '/api/alerts/inbox?project_id=default')).status).toBe(403);
  });

  it('fuzz: bad query values are 422s naming the parameter', async () => {
    for (const [q, loc] of [
      ['limit=0', 'limit'],
      ['limit=10000', 'limit'],
      ['limit=x', 'limit'],
      ['cursor=%25%25%25', 'cursor'],
      ['status=open', 'status'],
      ['type=nope', 'type'],
      ['severity=high', 'severity'],
    ]) {
      const r = await as(viewer, 'GET', `/api/alerts/inbox?${q}`);
      expect(r.status, q).toBe(422);
      expect(r.json.detail[0].loc, q).toEqual(['query', loc]);
    }
    expect(
      (await as(admin, 'POST', `/api/alerts/${alertId}/snooze`, { minutes: '15' })).status,
    ).toBe(422);
    expect((await as(admin, 'POST', `/api/alerts/${alertId}/snooze`, [])).status).toBe(422);
    const unknownToggle = await as(admin, 'POST', '/api/alerts/config', {
      alert_types: { mcp_down: false, nope: true },
    });
    expect(unknownToggle.status).toBe(422);
    expect(unknownToggle.json.detail[0].loc).toEqual(['body', 'alert_types', 'nope']);
    expect(
      (await as(admin, 'POST', '/api/alerts/config', { alert_types: { mcp_down: 'no' } })).status,
    ).toBe(422);
  });

  it('pages newest first with an opaque cursor', async () => {
    for (let i = 0; i < 4; i++)
      await server.services.alerts.fire(fireInput({ dedupKey: `page:${i}` }));
    const first = await as(viewer, 'GET', '/api/alerts/inbox?limit=3');
    expect(first.json).toHaveLength(3);
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    const second = await as(viewer, 'GET', `/api/alerts/inbox?limit=3&cursor=${cursor}`);
    const ids = [...first.json, ...second.json].map((a: any) => a.id);
    expect(new Set(ids).size).toBe(5);
    expect(second.headers.get('x-next-cursor')).toBeNull();
  });

  it('refuses private, metadata, localhost, public http and file: webhooks with a 422, sending nothing', async () => {
    const targets = [
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest',
      'https://localhost/hook',
      'http://hooks.example.com/services/x',
      'file:///etc/passwd',
      receiver.url,
      receiver.url.replace('http:', 'https:'),
    ];
    for (const url of targets) {
      const r = await as(admin, 'POST', '/api/alerts/config', { chat_webhook: url });
      expect(r.status, url).toBe(422);
      expect(r.json.detail[0].loc).toEqual(['body', 'chat_webhook']);
      expect(r.json.detail[0].msg).toMatch(/^refused by the outbound URL policy: /);
    }
    // The config-file webhook (127.0.0.1, not opened) is refused at send time too.
    const cfg = (await as(admin, 'GET', '/api/alerts/config')).json;
    expect(cfg).toMatchObject({ chat_webhook_configured: true, chat_webhook_source: 'config' });
    const test = await as(admin, 'POST', '/api/alerts/test');
    expect(test.json.ok).toBe(false);
    expect(test.json.error).toMatch(/outbound URL policy/);
    expect(receiver.bodies).toHaveLength(0);
  });

  it('saving and clearing a webhook: settings win over the config file, cleared falls back', async () => {
    const saved = await as(admin, 'POST', '/api/alerts/config', {
      chat_webhook: 'https://hooks.example.com/services/T1/B2/secretvalue9',
    });
    expect(saved.json).toMatchObject({
      chat_webhook_source: 'settings',
      chat_webhook_masked: 'https://hooks.example.com/…lue9',
    });
    expect(saved.text).not.toContain('secretvalue');
    expect((await as(admin, 'GET', '/api/alerts/config')).text).not.toContain('secretvalue');
    const cleared = await as(admin, 'POST', '/api/alerts/config', { chat_webhook: null });
    expect(cleared.json.chat_webhook_source).toBe('config');
    const gql = await as(admin, 'POST', '/graphql', {
      query:
        '{ alertConfig { chatWebhookSource alertTypes } alertCounts { needsAttention } alerts(first: 2) { edges { node { id status } } pageInfo { hasNextPage } } }',
    });
    expect(gql.json.data.alertConfig.chatWebhookSource).toBe('config');
    expect(gql.json.data.alertConfig.alertTypes.anomaly_warning).toBe(false);
    expect(gql.json.data.alerts.edges).toHaveLength(2);
    expect(gql.json.data.alerts.pageInfo.hasNextPage).toBe(true);
    expect(gql.json.data.alertCounts.needsAttention).toBeGreaterThan(0);
  });

  it('deleting a project removes its alerts, dedup keys and alert config', async () => {
    const input = fireInput({
      projectId: 'other',
      dedupKey: 'agent_failure:gone',
      dedupScope: 'forever',
      type: 'agent_failure',
    });
    expect(await server.services.alerts.fire(input)).not.toBeNull();
    expect(
      (await as(otherAdmin, 'POST', '/api/alerts/config', { alert_types: { mcp_down: false } }))
        .status,
    ).toBe(200);
    expect((await as(admin, 'DELETE', '/api/projects/other')).status).toBe(204);
    await createProject(server.httpUrl, admin, 'other');
    const fresh = (await createKey(server.httpUrl, admin, { role: 'admin', project_id: 'other' }))
      .key;
    expect((await as(fresh, 'GET', '/api/alerts/inbox?status=all')).json).toEqual([]);
    expect((await as(fresh, 'GET', '/api/alerts/config')).json.alert_types.mcp_down).toBe(true);
    expect(await server.services.alerts.fire(input)).not.toBeNull();
  });
});
