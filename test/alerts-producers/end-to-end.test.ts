import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { eventually, startReceiver, type Receiver } from '../alerts/helpers.ts';
import { tempDir, writeConfig, writeTools } from '../health/helpers.ts';
import { startSwitchableMcp, type SwitchableMcp } from './switchable-mcp.ts';

/**
 * The producers end to end (issue #10's headline): a real server on PGlite, a chat receiver on
 * 127.0.0.1, fixture MCP servers scripted through outages, drift and slow spells, driven with
 * POST /api/health/check, and spans through POST /api/traces/spans. What is asserted is what a
 * user sees: chat messages and the inbox.
 */
const ADMIN = bootstrapKey();
let mcp: SwitchableMcp;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  mcp = await startSwitchableMcp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await mcp?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

function configDoc(
  servers: string[],
  monitor: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    monitor: { enabled: false, ...monitor },
    network: { allow_private_targets: ['127.0.0.1/32'] },
    alerts: { chat_webhook: receiver.url },
    servers: servers.map((name) => ({
      name,
      transport: 'streamable_http',
      url: mcp.urlOf(name),
      timeout_seconds: 5,
    })),
  };
}

async function start(doc: Record<string, unknown>, dataDir?: string): Promise<TestServer> {
  const sub = tempDir();
  const server = await startTestServer({
    SPYGLASS_CONFIG: writeConfig(sub, doc),
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
    ...(dataDir ? { SPYGLASS_DATA_DIR: dataDir } : {}),
  });
  rmSync(sub, { recursive: true, force: true });
  // Check latency is what the fixture's virtual clock says, not the machine's speed.
  server.services.health.latencyClock = () => mcp.clock();
  return server;
}

async function check(server: TestServer, name: string): Promise<string> {
  const res = expectStatus(
    await call(server.httpUrl, 'POST', '/api/health/check', {
      key: ADMIN,
      body: { server_name: name },
    }),
    200,
    `check ${name}`,
  );
  return res.json[0].status as string;
}

async function checks(
  server: TestServer,
  name: string,
  n: number,
  expected: string,
): Promise<void> {
  for (let i = 0; i < n; i++) expect(await check(server, name)).toBe(expected);
}

async function inbox(server: TestServer, query: string): Promise<any[]> {
  return expectStatus(
    await call(server.httpUrl, 'GET', `/api/alerts/inbox?limit=200&${query}`, { key: ADMIN }),
    200,
    'inbox',
  ).json as any[];
}

/** Every alert started has reached the inbox, and every chat delivery has an outcome. */
async function settle(server: TestServer): Promise<void> {
  await server.services.alertProducers.settled();
  await eventually(
    async () => (await inbox(server, 'status=all')).every((a) => a.delivery !== 'pending'),
    10_000,
  );
}

/** The chat field `*Name*\nvalue` of a Block Kit message. */
function fact(body: any, name: string): string | undefined {
  const f = (body.blocks?.[1]?.fields as { text: string }[] | undefined)?.find((x) =>
    x.text.startsWith(`*${name}*\n`),
  );
  return f?.text.slice(name.length + 3);
}

const messages = (type: string, about: { server?: string; session?: string }) =>
  receiver.bodies.filter(
    (b) =>
      fact(b, 'Type') === type &&
      (about.server === undefined || fact(b, 'Server') === about.server) &&
      (about.session === undefined || fact(b, 'Session') === about.session),
  );

/**
 * One data directory for the whole file (a fresh PGlite database is the slow part of a start);
 * the later tests restart the server on it, the last one with alert_on_every_failure.
 */
describe('alert producers against a running server', () => {
  const SERVERS = ['outage', 'drifty', 'slowpoke', 'muted', 'restarted', 'every'];
  let server: TestServer;
  let dataDir: string;
  const driftFile = () => join(dir, 'drifty.json');

  const restart = async (monitor: Record<string, unknown> = {}) => {
    await server.stop();
    server = await start(configDoc(SERVERS, monitor), dataDir);
    server.services.alerts.retry = { ...server.services.alerts.retry, backoffMs: () => 5 };
  };

  beforeAll(async () => {
    writeTools(driftFile(), [
      {
        name: 'read_file',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'ping', inputSchema: { type: 'object' } },
    ]);
    mcp.toolsFile('drifty', driftFile());
    // The test's own data directory (not a pooled store), so that restarts find the same data.
    dataDir = tempDir();
    server = await start(configDoc(SERVERS), dataDir);
    server.services.alerts.retry = { ...server.services.alerts.retry, backoffMs: () => 5 };
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('an outage: three failed checks give exactly one mcp_down message and one firing alert; recovery one mcp_recovered and the down alert resolved', async () => {
    await checks(server, 'outage', 1, 'up');
    mcp.fail('outage', true);
    await checks(server, 'outage', 2, 'down');
    await settle(server);
    expect(messages('mcp_down', { server: 'outage' })).toHaveLength(0);

    await checks(server, 'outage', 1, 'down');
    await settle(server);
    const down = messages('mcp_down', { server: 'outage' });
    expect(down).toHaveLength(1);
    expect(down[0].text).toContain('CRITICAL');
    expect(down[0].text).toContain('MCP server outage is down');
    expect(fact(down[0], 'failures')).toBe('3');
    const firing = await inbox(server, 'type=mcp_down&status=firing');
    expect(firing).toHaveLength(1);
    expect(firing[0]).toMatchObject({
      server_name: 'outage',
      severity: 'critical',
      delivery: 'sent',
    });
    expect(firing[0].message).toContain('3 failed health checks in a row');
    expect(firing[0].message).toContain('503');

    // Still down: nothing new.
    await checks(server, 'outage', 2, 'down');
    await settle(server);
    expect(messages('mcp_down', { server: 'outage' })).toHaveLength(1);
    expect(await inbox(server, 'type=mcp_down')).toHaveLength(1);

    mcp.fail('outage', false);
    await checks(server, 'outage', 2, 'up');
    await settle(server);
    const recovered = messages('mcp_recovered', { server: 'outage' });
    expect(recovered).toHaveLength(1);
    expect(recovered[0].text).toContain('MCP server outage recovered');
    expect(await inbox(server, 'type=mcp_down')).toEqual([]);
    const resolved = await inbox(server, 'type=mcp_down&status=resolved');
    expect(resolved.map((a) => a.id)).toEqual([firing[0].id]);
    expect(resolved[0].resolved_at).not.toBeNull();
    expect(await inbox(server, 'type=mcp_recovered')).toMatchObject([
      { severity: 'info', server_name: 'outage' },
    ]);
  });

  it('a schema drift fires one schema_drift alert, critical when breaking', async () => {
    await checks(server, 'drifty', 1, 'up');
    writeTools(driftFile(), [{ name: 'ping', inputSchema: { type: 'object' } }]);
    await checks(server, 'drifty', 1, 'degraded');
    await checks(server, 'drifty', 2, 'up');
    await settle(server);
    const alerts = await inbox(server, 'type=schema_drift');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ severity: 'critical', server_name: 'drifty' });
    expect(alerts[0].message).toContain('tool_removed read_file');
    expect(messages('schema_drift', { server: 'drifty' })).toHaveLength(1);
  });

  it('a check far slower than the baseline fires high_latency once; back to normal resolves it', async () => {
    // On the fixture's virtual clock every request costs 4 ms, so the baseline is exactly a few
    // requests' worth whatever the load; then each costs 300 ms: 75 times the baseline.
    mcp.cost('slowpoke', 4);
    await checks(server, 'slowpoke', 5, 'up');
    mcp.cost('slowpoke', 300);
    await checks(server, 'slowpoke', 2, 'up');
    await settle(server);
    const slow = await inbox(server, 'type=high_latency');
    expect(slow).toHaveLength(1);
    expect(slow[0]).toMatchObject({
      severity: 'warning',
      server_name: 'slowpoke',
      status: 'firing',
    });
    expect(messages('high_latency', { server: 'slowpoke' })).toHaveLength(1);
    mcp.cost('slowpoke', 4);
    await checks(server, 'slowpoke', 1, 'up');
    await settle(server);
    expect(await inbox(server, 'type=high_latency')).toEqual([]);
    expect(await inbox(server, 'type=high_latency&status=resolved')).toHaveLength(1);
  });

  it('agent_failure fires once per session across batches, and once under concurrent batches', async () => {
    const failing = (session: string, tag = 'tool_failure') =>
      nativeSpan({ session_id: session, status: 'error', error: 'ENOENT', health_tag: tag });
    const post = (spans: unknown[]) =>
      call(server.httpUrl, 'POST', '/api/traces/spans', { key: ADMIN, body: spans });
    for (let i = 0; i < 3; i++)
      expectStatus(
        await post([nativeSpan({ session_id: 'sess-a' }), failing('sess-a')]),
        202,
        'batch',
      );
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        post([failing('sess-b'), failing('sess-b', 'loop_detected')]),
      ),
    );
    for (const r of replies) expectStatus(r, 202, 'concurrent batch');
    expectStatus(await post([nativeSpan({ session_id: 'sess-ok' })]), 202, 'healthy batch');
    await settle(server);

    const failures = await inbox(server, 'type=agent_failure');
    expect(failures.map((a) => a.session_id).sort()).toEqual(['sess-a', 'sess-b']);
    expect(failures.find((a) => a.session_id === 'sess-a')?.message).toContain(
      'tool_failure on filesystem/read_file',
    );
    expect(messages('agent_failure', { session: 'sess-a' })).toHaveLength(1);
    expect(messages('agent_failure', { session: 'sess-b' })).toHaveLength(1);
    expect(await inbox(server, 'type=loop_detected')).toMatchObject([
      { session_id: 'sess-b', severity: 'warning', agent_name: 'planner' },
    ]);
    expect(messages('loop_detected', { session: 'sess-b' })).toHaveLength(1);
  });

  it('with the mcp_down toggle off the inbox gets the alert and the chat nothing', async () => {
    expectStatus(
      await call(server.httpUrl, 'POST', '/api/alerts/config', {
        key: ADMIN,
        body: { alert_types: { mcp_down: false } },
      }),
      200,
      'config',
    );
    mcp.fail('muted', true);
    await checks(server, 'muted', 3, 'down');
    await settle(server);
    expect(await inbox(server, 'type=mcp_down&status=firing')).toMatchObject([
      { server_name: 'muted', delivery: 'skipped' },
    ]);
    expect(messages('mcp_down', { server: 'muted' })).toEqual([]);
    expectStatus(
      await call(server.httpUrl, 'POST', '/api/alerts/config', {
        key: ADMIN,
        body: { alert_types: { mcp_down: true } },
      }),
      200,
      'config',
    );
    mcp.fail('muted', false);
    await checks(server, 'muted', 1, 'up');
    await settle(server);
    expect(await inbox(server, 'type=mcp_down')).toEqual([]);
  });

  it('across a restart, an outage already reported is not reported again, and its recovery still is', async () => {
    mcp.fail('restarted', true);
    await checks(server, 'restarted', 3, 'down');
    await settle(server);
    expect(messages('mcp_down', { server: 'restarted' })).toHaveLength(1);

    await restart();
    await checks(server, 'restarted', 2, 'down');
    await settle(server);
    expect(messages('mcp_down', { server: 'restarted' })).toHaveLength(1);
    mcp.fail('restarted', false);
    await checks(server, 'restarted', 1, 'up');
    await settle(server);
    expect(messages('mcp_recovered', { server: 'restarted' })).toHaveLength(1);
    expect(fact(messages('mcp_recovered', { server: 'restarted' })[0], 'failures')).toBe('5');
    expect(await inbox(server, 'type=mcp_down')).toEqual([]);
  }, 60_000);

  it('with monitor.alert_on_every_failure, one mcp_down message per failed check, and recovery resolves them all', async () => {
    await restart({ alert_on_every_failure: true });
    mcp.fail('every', true);
    await checks(server, 'every', 3, 'down');
    await settle(server);
    expect(messages('mcp_down', { server: 'every' })).toHaveLength(3);
    expect((await inbox(server, 'type=mcp_down&status=firing')).map((a) => a.server_name)).toEqual([
      'every',
      'every',
      'every',
    ]);
    mcp.fail('every', false);
    await checks(server, 'every', 1, 'up');
    await settle(server);
    expect(messages('mcp_recovered', { server: 'every' })).toHaveLength(1);
    expect(await inbox(server, 'type=mcp_down')).toEqual([]);
    expect(
      (await inbox(server, 'type=mcp_down&status=resolved')).filter(
        (a) => a.server_name === 'every',
      ),
    ).toHaveLength(3);
  }, 60_000);
});
