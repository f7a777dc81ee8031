import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { MonitorAlerts } from '../../src/alerts/producers/monitor-alerts.ts';
import type { MonitorRules } from '../../src/alerts/producers/monitor-rules.ts';
import type { CheckReport } from '../../src/health/checker.ts';
import type { CheckedStatus, DriftEvent, HealthResult } from '../../src/model/health.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';

/** The monitor producer's rules against a recording sink: the transitions a user sees as alerts. */
const RULES: MonitorRules = {
  consecutiveFailures: 3,
  alertOnEveryFailure: false,
  latencySpikeMultiplier: 3,
};
const T0 = Date.parse('2026-11-20T12:00:00Z');
let clock = T0;

function result(
  status: CheckedStatus,
  opts: {
    latencyMs?: number | null;
    error?: string | null;
    server?: string;
    project?: string;
  } = {},
): CheckReport['result'] {
  clock += 60_000;
  return {
    id: randomUUID(),
    projectId: opts.project ?? 'default',
    serverName: opts.server ?? 'files',
    status,
    latencyMs: status === 'down' ? null : (opts.latencyMs ?? 100),
    toolsCount: status === 'down' ? null : 2,
    schemaHash: status === 'down' ? null : 'h1',
    error: opts.error ?? (status === 'down' ? 'connect ECONNREFUSED 127.0.0.1:9' : null),
    checkedAt: new Date(clock),
    schemaDrift: false,
    transport: 'streamable_http',
    serverInfo: null,
    protocolVersion: null,
  };
}

function report(r: CheckReport['result'], drift: DriftEvent | null = null): CheckReport {
  return {
    result: r,
    drift,
    outcome: {
      ok: false,
      kind: 'refused',
      error: r.error ?? '',
      elapsedMs: 1,
      serverInfo: null,
      protocolVersion: null,
    } as CheckReport['outcome'],
  };
}

function setup(rules: Partial<MonitorRules> = {}, history: HealthResult[] = []) {
  const sink = new RecordingSink();
  const alerts = new MonitorAlerts({
    sink,
    rules: { ...RULES, ...rules },
    history: () => Promise.resolve(history),
    logger: pino({ level: 'silent' }),
  });
  const run = async (...results: CheckReport['result'][]) => {
    for (const r of results) alerts.observe(report(r));
    await alerts.settled();
  };
  return { sink, alerts, run };
}

describe('mcp_down and mcp_recovered', () => {
  it('fires mcp_down once at the third failure in a row, and mcp_recovered once on the first passing check', async () => {
    const { sink, run } = setup();
    await run(result('down'), result('down'));
    expect(sink.fired).toEqual([]);
    await run(result('down', { error: 'HTTP 503 from server' }));
    expect(sink.fired).toHaveLength(1);
    const down = sink.fired[0];
    expect(down).toMatchObject({
      type: 'mcp_down',
      severity: 'critical',
      dedupKey: 'mcp_down:files',
      dedupScope: 'open',
      serverName: 'files',
      projectId: 'default',
    });
    expect(down?.message).toContain('3 failed health checks in a row');
    expect(down?.message).toContain('HTTP 503 from server');

    await run(result('down'), result('down'));
    expect(sink.types()).toEqual(['mcp_down']);

    await run(result('up'), result('up'));
    expect(sink.types()).toEqual(['mcp_down', 'mcp_recovered']);
    expect(sink.fired[1]).toMatchObject({ severity: 'info', serverName: 'files' });
    expect(sink.fired[1]?.message).toContain('after 5 failed checks');
    expect(sink.resolved).toEqual([
      { projectId: 'default', dedupKey: 'mcp_down:files', closed: 1 },
    ]);

    // The next outage is a new transition.
    await run(result('down'), result('down'), result('down'));
    expect(sink.types()).toEqual(['mcp_down', 'mcp_recovered', 'mcp_down']);
  });

  it('does not count degraded checks as failures: they answer, so they end an outage', async () => {
    const { sink, run } = setup();
    await run(
      result('down'),
      result('down'),
      result('degraded', { error: 'probe failed' }),
      result('down'),
      result('down'),
    );
    expect(sink.fired).toEqual([]);
    await run(result('down'));
    expect(sink.types()).toEqual(['mcp_down']);
    await run(result('degraded', { error: 'probe failed' }));
    expect(sink.types()).toEqual(['mcp_down', 'mcp_recovered']);
  });

  it('reports nothing for a server that passes, or recovers without having been reported down', async () => {
    const { sink, run } = setup();
    await run(result('up'), result('down'), result('down'), result('up'), result('up'));
    expect(sink.fired).toEqual([]);
    expect(sink.resolved).toEqual([]);
  });

  it('keeps servers and projects apart', async () => {
    const { sink, run } = setup();
    await run(
      result('down', { server: 'a' }),
      result('down', { server: 'b' }),
      result('down', { server: 'a', project: 'p2' }),
    );
    await run(result('down', { server: 'a' }), result('down', { server: 'a' }));
    expect(sink.fired.map((f) => `${f.projectId}/${f.serverName}`)).toEqual(['default/a']);
  });

  it('applies reports of one server in order when they arrive together', async () => {
    const { sink, alerts } = setup();
    for (let i = 0; i < 6; i++) alerts.observe(report(result('down')));
    await alerts.settled();
    expect(sink.fired).toHaveLength(1);
    expect(sink.fired[0]?.fields?.failures).toBe(3);
  });

  it('with alert_on_every_failure fires one mcp_down per failed check, and recovery resolves them all', async () => {
    const { sink, run } = setup({ alertOnEveryFailure: true });
    await run(result('down'), result('down'), result('down'));
    expect(sink.types()).toEqual(['mcp_down', 'mcp_down', 'mcp_down']);
    expect(new Set(sink.fired.map((f) => f.dedupKey)).size).toBe(3);
    expect(sink.fired.map((f) => f.fields?.failures)).toEqual([1, 2, 3]);
    await run(result('up'));
    expect(sink.types()).toEqual(['mcp_down', 'mcp_down', 'mcp_down', 'mcp_recovered']);
    expect(
      sink.resolved
        .filter((r) => r.closed === 1)
        .map((r) => r.dedupKey)
        .sort(),
    ).toEqual(
      sink.fired
        .slice(0, 3)
        .map((f) => f.dedupKey)
        .sort(),
    );
  });

  it('keeps firing when the sink fails once', async () => {
    const { sink, alerts } = setup({ alertOnEveryFailure: true });
    const fire = sink.fire.bind(sink);
    let calls = 0;
    sink.fire = (input) =>
      ++calls === 1 ? Promise.reject(new Error('database gone')) : fire(input);
    for (let i = 0; i < 3; i++) alerts.observe(report(result('down')));
    await alerts.settled();
    expect(sink.fired).toHaveLength(2);
  });
});

describe('after a restart (state seeded from stored results)', () => {
  const stored = (...statuses: CheckedStatus[]): HealthResult[] =>
    statuses.map((s) => result(s)).reverse();

  it('does not report an outage again that was already long enough to be reported', async () => {
    const history = stored('up', 'down', 'down', 'down');
    const { sink, run } = setup({}, history);
    await run(result('down'));
    expect(sink.fired).toEqual([]);
    await run(result('up'));
    expect(sink.types()).toEqual(['mcp_recovered']);
    expect(sink.fired[0]?.message).toContain('after 4 failed checks');
    expect(sink.resolved.map((r) => r.dedupKey)).toEqual(['mcp_down:files']);
  });

  it('continues the count of failures in progress', async () => {
    const { sink, run } = setup({}, stored('up', 'down', 'down'));
    await run(result('down'));
    expect(sink.types()).toEqual(['mcp_down']);
    expect(sink.fired[0]?.fields?.failures).toBe(3);
  });

  it('leaves the current check out of its own history', async () => {
    const current = result('down');
    const { sink, run } = setup({}, [current, ...stored('up', 'down')]);
    await run(current);
    expect(sink.fired).toEqual([]);
  });
});

describe('schema_drift', () => {
  const drift = (classification: DriftEvent['classification']): DriftEvent => ({
    id: randomUUID(),
    projectId: 'default',
    serverName: 'files',
    detectedAt: new Date(clock),
    previousHash: 'h1',
    currentHash: 'h2',
    classification,
    changes: [
      {
        change_type: 'param_type_changed',
        classification,
        tool_name: 'read_file',
        param_name: 'path',
        param_type: 'integer',
        detail: 'string -> integer',
      },
      {
        change_type: 'tool_added',
        classification: 'COMPATIBLE',
        tool_name: 'write_file',
        param_name: null,
        param_type: null,
        detail: null,
      },
    ],
  });

  it('fires one alert per drift event, critical when breaking and a warning otherwise', async () => {
    const { sink, alerts } = setup();
    alerts.observe(report(result('degraded'), drift('BREAKING')));
    alerts.observe(report(result('up')));
    alerts.observe(report(result('degraded'), drift('COMPATIBLE')));
    await alerts.settled();
    expect(sink.fired.map((f) => [f.type, f.severity])).toEqual([
      ['schema_drift', 'critical'],
      ['schema_drift', 'warning'],
    ]);
    expect(sink.fired[0]?.message).toContain(
      'param_type_changed read_file.path (string -> integer)',
    );
    expect(sink.fired[0]?.fields).toMatchObject({
      classification: 'BREAKING',
      changes: 2,
      previous_hash: 'h1',
      current_hash: 'h2',
    });
  });
});

describe('high_latency', () => {
  it('fires once when a check exceeds the multiplier × the median of earlier checks, and resolves when back under', async () => {
    const { sink, run } = setup();
    await run(...[100, 90, 110, 100, 100].map((ms) => result('up', { latencyMs: ms })));
    // The median of the five is 100 ms, so the threshold is 300 ms: reaching it is not above it.
    await run(result('up', { latencyMs: 300 }));
    expect(sink.fired).toEqual([]);
    await run(result('up', { latencyMs: 450 }), result('degraded', { latencyMs: 900 }));
    expect(sink.fired).toHaveLength(1);
    expect(sink.fired[0]).toMatchObject({
      type: 'high_latency',
      severity: 'warning',
      dedupKey: 'high_latency:files',
      dedupScope: 'open',
    });
    expect(sink.fired[0]?.fields).toMatchObject({
      latency_ms: 450,
      baseline_ms: 100,
      threshold_ms: 300,
    });
    expect(sink.fired[0]?.message).toContain('4.5× its baseline of 100 ms');
    // Down checks have no latency: the slow spell stays open through them.
    await run(result('down'));
    expect(sink.resolved).toEqual([]);
    await run(result('up', { latencyMs: 120 }));
    expect(sink.resolved).toEqual([
      { projectId: 'default', dedupKey: 'high_latency:files', closed: 1 },
    ]);
    await run(result('up', { latencyMs: 110 }));
    expect(sink.resolved).toHaveLength(1);
  });

  it('needs five earlier answering checks before it judges', async () => {
    const { sink, run } = setup();
    await run(
      ...[10, 10, 10, 10].map((ms) => result('up', { latencyMs: ms })),
      result('up', { latencyMs: 5000 }),
    );
    expect(sink.fired).toEqual([]);
  });

  it('after a restart, takes its baseline from stored checks and closes a slow alert left open', async () => {
    const history = [100, 100, 100, 100, 100]
      .map((ms) => result('up', { latencyMs: ms }))
      .reverse();
    const { sink, run } = setup({}, history);
    await run(result('up', { latencyMs: 100 }));
    expect(sink.resolved.map((r) => r.dedupKey)).toEqual(['high_latency:files']);
    await run(result('up', { latencyMs: 500 }));
    expect(sink.types()).toEqual(['high_latency']);
  });
});
