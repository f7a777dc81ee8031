import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { configFile, eventually, fireInput, startReceiver, type Receiver } from './helpers.ts';

describe('alert fire, dedup and chat delivery', () => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({ SPYGLASS_CONFIG: configFile() });
    server.services.alerts.retry = { ...server.services.alerts.retry, backoffMs: () => 5 };
    const saved = await call(server.httpUrl, 'POST', '/api/alerts/config', { body: { chat_webhook: receiver.url } });
    expect(saved.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
    await receiver?.close();
  });

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
    expect(a).toMatchObject({ status: 'firing', type: 'mcp_down', severity: 'critical', server_name: 'files', project_id: 'default', delivery_error: null });
  });

  it('open dedup: one alert while unresolved, concurrent fires included; a new one after resolve', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:dup' }))));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await server.services.alerts.resolveKey('default', 'mcp_down:dup')).toBe(1);
    expect(await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:dup' }))).not.toBeNull();
  });

  it('forever dedup: once per key even after resolve, concurrent fires included', async () => {
    const input = fireInput({ type: 'agent_failure', dedupKey: 'agent_failure:s1', dedupScope: 'forever' });
    const results = await Promise.all(Array.from({ length: 4 }, () => server.services.alerts.fire(input)));
    const first = results.find((r) => r !== null);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    await server.services.alerts.move('default', first!.id, { action: 'resolve' });
    expect(await server.services.alerts.fire(input)).toBeNull();
  });

  it('retries a 500 twice then delivers; always 500 is recorded as failed with the status, not the body', async () => {
    // Earlier tests' deliveries have landed (each alert's outcome is recorded) before the script is set.
    await eventually(async () => (await call(server.httpUrl, 'GET', '/api/alerts/inbox?status=all&limit=200')).json.every((a: any) => a.delivery !== 'pending'));
    const start = receiver.bodies.length;
    receiver.script.push(500, 500);
    const ok = await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:retry' }));
    await eventually(async () => (await alertOf(ok!.id))?.delivery === 'sent');
    expect(receiver.bodies.length - start).toBe(3);
    expect(receiver.bodies.slice(start).every((b) => JSON.stringify(b).includes(ok!.id))).toBe(true);

    receiver.script.push(500, 500, 500);
    const bad = await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:fail' }));
    const failed = await eventually(async () => {
      const x = await alertOf(bad!.id);
      return x?.delivery === 'failed' ? x : null;
    });
    expect(failed.delivery_error).toBe('webhook answered HTTP 500');
  });

  it('toggle off: inbox only, delivery skipped', async () => {
    const saved = await call(server.httpUrl, 'POST', '/api/alerts/config', { body: { alert_types: { high_latency: false } } });
    expect(saved.json.alert_types.high_latency).toBe(false);
    const before = receiver.bodies.length;
    const a = await server.services.alerts.fire(fireInput({ type: 'high_latency', severity: 'warning', dedupKey: 'high_latency:files' }));
    const x = await eventually(async () => {
      const r = await alertOf(a!.id);
      return r?.delivery === 'skipped' ? r : null;
    });
    expect(x.status).toBe('firing');
    expect(receiver.bodies.length).toBe(before);
  });
});
