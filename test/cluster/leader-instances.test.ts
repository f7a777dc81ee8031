import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { freePort } from '../helpers/free-port.ts';
import { spawnInstance, type Instance } from '../helpers/instance.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * Two `spyglass serve` processes on one PostgreSQL database and one Redis, monitoring one MCP server
 * that is down (a closed port): the background jobs run on the leader only, one outage is one alert,
 * and killing the leader moves the monitor to the other within about a lease.
 */
const redisUrl = inject('redisUrl');
const METRICS_TOKEN = 'lease-test-metrics';
const LEADS = 'leader: this instance runs the background jobs';
const dir = mkdtempSync(join(tmpdir(), 'spyglass-lease-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function metric(inst: Instance, name: string): Promise<number> {
  const res = await fetch(`${inst.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  withinMs = 15_000,
): Promise<void> {
  await expect
    .poll(check, {
      timeout: withinMs,
      interval: 100,
      message: `not within ${withinMs} ms: ${what}`,
    })
    .toBe(true);
}

const inbox = async (inst: Instance, type: string): Promise<any[]> =>
  (await getJson(`${inst.url}/api/alerts/inbox?status=all&type=${type}`)).json as any[];

describe.runIf(redisUrl && pgAdminUrl)('two instances, one leader', () => {
  it('only the leader monitors; one outage and one failing session give one alert each; killing the leader moves the monitor', async () => {
    const closed = await freePort();
    const config = join(dir, 'spyglass.yaml');
    writeFileSync(
      config,
      [
        'monitor:',
        '  health_check_interval_seconds: 1',
        'alerts:',
        '  consecutive_failures: 2',
        'servers:',
        '  - name: gone',
        '    transport: streamable_http',
        `    url: http://127.0.0.1:${closed}/mcp`,
        '',
      ].join('\n'),
    );
    const env = {
      SPYGLASS_DATABASE_URL: await createPgDatabase(),
      SPYGLASS_REDIS_URL: redisUrl!,
      SPYGLASS_CLUSTER_NAME: `t-${randomUUID()}`,
      SPYGLASS_LEASE_SECONDS: '2',
      SPYGLASS_CONFIG: config,
      SPYGLASS_METRICS_TOKEN: METRICS_TOKEN,
    };
    // One after the other: the first applies the migrations to the fresh database.
    const first = await spawnInstance(env);
    const second = await spawnInstance(env);
    const both = [first, second];

    await eventually(
      'one instance leads and mcp_down fired',
      async () =>
        both.some((i) => i.output().includes(LEADS)) && (await inbox(first, 'mcp_down')).length > 0,
    );
    const leader = both.find((i) => i.output().includes(LEADS))!;
    const follower = both.find((i) => i !== leader)!;
    expect(follower.output()).not.toContain(LEADS);
    await eventually(
      'the leader ran a few checks',
      async () => (await metric(leader, 'spyglass_health_checks_total')) >= 3,
    );
    expect(await metric(follower, 'spyglass_health_checks_total')).toBe(0);
    expect([
      await metric(leader, 'spyglass_leader'),
      await metric(follower, 'spyglass_leader'),
    ]).toEqual([1, 0]);
    expect(await inbox(follower, 'mcp_down')).toHaveLength(1);

    // One failing session, ingested through both instances: one agent_failure.
    const failing = () =>
      nativeSpan({
        session_id: 'sess-both',
        status: 'error',
        error: 'ENOENT',
        health_tag: 'tool_failure',
      });
    for (const inst of both) {
      expect((await postJson(`${inst.url}/api/traces/spans`, [failing()])).status).toBe(202);
      await eventually(
        'the span is stored',
        async () => (await metric(inst, 'spyglass_spans_ingested_total')) >= 1,
      );
    }
    await eventually(
      'agent_failure fired',
      async () => (await inbox(first, 'agent_failure')).length > 0,
    );
    // Both instances' producers tried: one wrote the alert, the other's attempt was deduplicated.
    const agentFailures = async (name: string) =>
      (await metric(first, `${name}{type="agent_failure"}`)) +
      (await metric(second, `${name}{type="agent_failure"}`));
    await eventually(
      'the other instance tried too',
      async () => (await agentFailures('spyglass_alerts_deduplicated_total')) >= 1,
    );
    expect(await agentFailures('spyglass_alerts_fired_total')).toBe(1);
    expect(await inbox(second, 'agent_failure')).toHaveLength(1);

    // The leader dies without releasing its lease: the other takes over when it expires.
    await leader.kill();
    await eventually('the other instance leads', () => follower.output().includes(LEADS), 6_000);
    await eventually(
      'checks continue on the new leader',
      async () => (await metric(follower, 'spyglass_health_checks_total')) >= 3,
    );
    expect(await inbox(follower, 'mcp_down')).toHaveLength(1);
    await follower.stop();
  }, 60_000);
});
