import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { call } from '../helpers/auth.ts';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { openWs } from '../helpers/graphql-ws.ts';
import { captureLog, type CapturedLog } from '../helpers/log-capture.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SseClient } from '../helpers/sse.ts';
import { configFile, eventually, fireInput, startReceiver, type Receiver } from './helpers.ts';

describe('alert fire, dedup and chat delivery', () => {
  let server: TestServer;
  let receiver: Receiver;
  let log: CapturedLog;

  beforeAll(async () => {
    receiver = await startReceiver();
    log = captureLog('debug');
    server = await startTestServer({ SPYGLASS_CONFIG: configFile() }, log.logger);
    server.services.alerts.retry = { ...server.services.alerts.retry, backoffMs: () => 5 };
    const saved = await call(server.httpUrl, 'POST', '/api/alerts/config', {
      body: { chat_webhook: receiver.url },
    });
    expect(saved.status).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await server?.dispose();
    await receiver?.close();
  });

  /** Every delivery so far has its outcome, so a scripted receiver status meets the request meant for it. */
  const settled = () =>
    eventually(async () =>
      (await call(server.httpUrl, 'GET', '/api/alerts/inbox?status=all&limit=200')).json.every(
        (a: any) => a.delivery !== 'pending',
      ),
    );
  const alertOf = async (id: string) => {
    const r = await call(server.httpUrl, 'GET', '/api/alerts/inbox?status=all&limit=200');
    return (r.json as any[]).find((a) => a.id === id);
  };

  it('writes the inbox record and posts one Block Kit message', async () => {
    const fired = await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:one' }));
    expect(fired).not.toBeNull();
    await receiver.waitFor(1);
    const body = receiver.bodies[0];
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    expect(body.blocks[0].text.text).toContain('CRITICAL');
    expect(body.blocks[0].text.text).toContain('MCP server files is down');
    expect(body.blocks[1].type).toBe('section');
    const fieldTexts = (body.blocks[1].fields as any[]).map((f) => f.text).join('\n');
    expect(fieldTexts).toContain('mcp_down');
    expect(fieldTexts).toContain('files');
    expect(fieldTexts).toContain('consecutive_failures');
    expect(body.blocks[2].type).toBe('context');
    expect(body.blocks[2].elements[0].text).toContain(fired!.id);
    const a = await eventually(async () => {
      const x = await alertOf(fired!.id);
      return x?.delivery === 'sent' ? x : null;
    });
    expect(a).toMatchObject({
      status: 'firing',
      type: 'mcp_down',
      severity: 'critical',
      server_name: 'files',
      project_id: 'default',
      delivery_error: null,
    });
  });

  it('open dedup: one alert while unresolved, concurrent fires included; a new one after resolve', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:dup' })),
      ),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await server.services.alerts.resolveKey('default', 'mcp_down:dup')).toBe(1);
    expect(
      await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:dup' })),
    ).not.toBeNull();
  });

  it('forever dedup: once per key even after resolve, concurrent fires included', async () => {
    const input = fireInput({
      type: 'agent_failure',
      dedupKey: 'agent_failure:s1',
      dedupScope: 'forever',
    });
    const results = await Promise.all(
      Array.from({ length: 4 }, () => server.services.alerts.fire(input)),
    );
    const first = results.find((r) => r !== null);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    await server.services.alerts.move(LOCAL_ADMIN, first!.id, { action: 'resolve' });
    expect(await server.services.alerts.fire(input)).toBeNull();
  });

  it('retries a 500 twice then delivers; always 500 is recorded as failed with the status, not the body', async () => {
    await settled();
    const start = receiver.bodies.length;
    receiver.script.push(500, 500);
    const ok = await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:retry' }));
    await eventually(async () => (await alertOf(ok!.id))?.delivery === 'sent');
    expect(receiver.bodies.length - start).toBe(3);
    expect(receiver.bodies.slice(start).every((b) => JSON.stringify(b).includes(ok!.id))).toBe(
      true,
    );

    receiver.script.push(500, 500, 500);
    const bad = await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:fail' }));
    const failed = await eventually(async () => {
      const x = await alertOf(bad!.id);
      return x?.delivery === 'failed' ? x : null;
    });
    expect(failed.delivery_error).toBe('webhook answered HTTP 500');
  });

  it('toggle off: inbox only, delivery skipped', async () => {
    const saved = await call(server.httpUrl, 'POST', '/api/alerts/config', {
      body: { alert_types: { high_latency: false } },
    });
    expect(saved.json.alert_types.high_latency).toBe(false);
    const before = receiver.bodies.length;
    const a = await server.services.alerts.fire(
      fireInput({ type: 'high_latency', severity: 'warning', dedupKey: 'high_latency:files' }),
    );
    const x = await eventually(async () => {
      const r = await alertOf(a!.id);
      return r?.delivery === 'skipped' ? r : null;
    });
    expect(x.status).toBe('firing');
    expect(receiver.bodies.length).toBe(before);
  });

  it('streams alert:fired as the snake_case inbox record over SSE and the GraphQL alertFired subscription', async () => {
    const sse = await SseClient.open(`${server.httpUrl}/api/live/events`);
    const ws = await openWs(server.httpUrl);
    try {
      const sub = ws.subscribe('subscription { alertFired { data } }');
      // The subscription reaches the bus a moment after it is sent: fire until both streams saw one.
      const fired = new Map<string, string>();
      for (
        let i = 0;
        i < 50 && (sub.received.length === 0 || !sse.events.some((e) => e.event === 'alert:fired'));
        i++
      ) {
        const a = await server.services.alerts.fire(
          fireInput({ dedupKey: `mcp_down:live${i}`, serverName: 'live' }),
        );
        fired.set(a!.id, a!.firedAt.toISOString());
        await sse
          .waitFor(() => sse.events.some((e) => e.event === 'alert:fired'), 200)
          .catch(() => {});
      }
      const ev = JSON.parse(sse.events.find((e) => e.event === 'alert:fired')!.data);
      expect(ev).toMatchObject({
        type: 'mcp_down',
        project_id: 'default',
        server_name: 'live',
        status: 'firing',
        delivery: 'pending',
      });
      expect(ev.fired_at).toBe(fired.get(ev.id));
      await sub.count(1);
      const gqlEvent = sub.received[0].alertFired.data;
      expect(gqlEvent).toMatchObject({
        project_id: 'default',
        severity: 'critical',
        server_name: 'live',
      });
      expect(fired.has(gqlEvent.id)).toBe(true);
    } finally {
      sse.close();
      await ws.dispose();
    }
  });

  it('POST /api/alerts/test: ok against the receiver, ok false with the status against a 500, and against a closed port', async () => {
    await settled();
    const before = receiver.bodies.length;
    expect((await call(server.httpUrl, 'POST', '/api/alerts/test')).json).toEqual({ ok: true });
    await receiver.waitFor(before + 1);
    expect(receiver.bodies.at(-1).blocks[0].type).toBe('header');

    receiver.script.push(500);
    const failed = await call(server.httpUrl, 'POST', '/api/alerts/test');
    expect(failed.json).toEqual({ ok: false, error: 'webhook answered HTTP 500' });
    expect(failed.text).not.toContain('internal secret details');

    const closedPort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
      });
    });
    await call(server.httpUrl, 'POST', '/api/alerts/config', {
      body: { chat_webhook: `http://127.0.0.1:${closedPort}/hook` },
    });
    const refused = await call(server.httpUrl, 'POST', '/api/alerts/test');
    expect(refused.json.ok).toBe(false);
    expect(refused.json.error).toMatch(/webhook unreachable/);
    await call(server.httpUrl, 'POST', '/api/alerts/config', {
      body: { chat_webhook: receiver.url },
    });
  });

  it('the webhook never appears in config responses, logs or the audit log', async () => {
    const cfg = await call(server.httpUrl, 'GET', '/api/alerts/config');
    expect(cfg.json).toMatchObject({
      chat_webhook_configured: true,
      chat_webhook_source: 'settings',
      chat_webhook_masked: `http://127.0.0.1:${new URL(receiver.url).port}/…1234`,
    });
    expect(cfg.text).not.toContain('/hooks/T000/B000');
    await server.services.audit.flush();
    const audit = await call(server.httpUrl, 'GET', '/api/audit/logs?limit=200');
    expect((audit.json as any[]).some((e) => e.action === 'alerts.config_saved')).toBe(true);
    expect(audit.text).not.toContain('/hooks/T000/B000');
    expect(log.text()).not.toContain('/hooks/T000/B000');
    expect(log.text()).not.toContain('abcd1234');
  });

  it('a security:scan event fires one security alert per run', async () => {
    const scan = (at: string, critical: number) =>
      server.services.bus.publish({
        type: 'security:scan',
        data: {
          projectId: 'default',
          servers: ['files', 'git'],
          criticalCount: critical,
          highCount: 2,
          highestSeverity: critical ? 'critical' : 'high',
          scannedAt: new Date(at),
        },
      });
    scan('2026-11-20T10:00:00.000Z', 1);
    scan('2026-11-20T10:00:00.000Z', 1);
    scan('2026-11-20T11:00:00.000Z', 0);
    const found = await eventually(async () => {
      const r = await call(server.httpUrl, 'GET', '/api/alerts/inbox?status=all&limit=200');
      const sec = (r.json as any[]).filter((a) => a.type.startsWith('security_'));
      return sec.length >= 2 ? sec : null;
    });
    await new Promise((r) => setTimeout(r, 200));
    const all = (
      await call(server.httpUrl, 'GET', '/api/alerts/inbox?status=all&limit=200')
    ).json.filter((a: any) => a.type.startsWith('security_'));
    expect(all).toHaveLength(2);
    expect(found.map((a: any) => [a.type, a.severity]).sort()).toEqual([
      ['security_critical', 'critical'],
      ['security_high', 'warning'],
    ]);
    expect(all.find((a: any) => a.type === 'security_critical').message).toContain('files, git');
  });
});
