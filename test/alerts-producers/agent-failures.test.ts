import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AgentFailureAlerts } from '../../src/alerts/producers/agent-failures.ts';
import type { Alert, FireInput } from '../../src/model/alert.ts';
import type { HealthTag, Span } from '../../src/model/span.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';
import { span as storedSpan } from '../helpers/spans.ts';

/** Ingest's alerts from committed batches, against a recording sink. */
function span(tag: HealthTag | null, over: Partial<Span> = {}): Span {
  const t = new Date('2026-11-20T12:00:00Z');
  return storedSpan('default', t, {
    traceId: 'trace-1',
    sessionId: 'session-1',
    status: tag === null || tag === 'success' ? 'success' : 'error',
    error: tag === 'tool_failure' ? 'ENOENT: no such file' : null,
    endedAt: t,
    latencyMs: 5,
    healthTag: tag,
    ...over,
  });
}

function setup() {
  const sink = new RecordingSink();
  const alerts = new AgentFailureAlerts({ sink, logger: pino({ level: 'silent' }) });
  return { sink, alerts };
}

describe('agent_failure', () => {
  it('fires once per session across batches, naming the agent, session, tool and tag', async () => {
    const { sink, alerts } = setup();
    alerts.observe([
      span('success'),
      span('tool_failure'),
      span('tool_failure', { toolName: 'write_file' }),
    ]);
    alerts.observe([span('timeout')]);
    await alerts.settled();
    alerts.observe([span('tool_failure')]);
    await alerts.settled();
    expect(sink.fired).toHaveLength(1);
    const a = sink.fired[0];
    expect(a).toMatchObject({
      type: 'agent_failure',
      severity: 'warning',
      dedupKey: 'agent_failure:session-1',
      dedupScope: 'forever',
      agentName: 'planner',
      sessionId: 'session-1',
      serverName: 'filesystem',
    });
    expect(a?.title).toContain('planner');
    expect(a?.title).toContain('session-1');
    expect(a?.message).toContain('tool_failure on filesystem/read_file');
    expect(a?.message).toContain('ENOENT: no such file');
    // Once the sink has it, the repeats never reach it.
    expect(sink.deduplicated).toBe(0);
  });

  it('fires for every unhealthy tag, and for none of the healthy ones', async () => {
    const { sink, alerts } = setup();
    const unhealthy: HealthTag[] = [
      'tool_failure',
      'loop_detected',
      'budget_exceeded',
      'circuit_breaker_open',
      'timeout',
      'schema_drift',
    ];
    const healthy: HealthTag[] = ['success', 'success_with_fallback', 'budget_warning'];
    alerts.observe([
      ...healthy.map((t) => span(t, { sessionId: `ok-${t}` })),
      span(null, { sessionId: 'untagged' }),
    ]);
    alerts.observe(unhealthy.map((t) => span(t, { sessionId: `bad-${t}` })));
    await alerts.settled();
    expect(
      sink.fired
        .filter((f) => f.type === 'agent_failure')
        .map((f) => f.sessionId)
        .sort(),
    ).toEqual(unhealthy.map((t) => `bad-${t}`).sort());
  });

  it('keys a session by its trace when no session id was sent, and keeps projects apart', async () => {
    const { sink, alerts } = setup();
    alerts.observe([
      span('timeout', { sessionId: null, traceId: 't-9' }),
      span('timeout', { sessionId: null, traceId: 't-9', projectId: 'other' }),
    ]);
    await alerts.settled();
    expect(sink.fired.map((f) => `${f.projectId}:${f.dedupKey}`).sort()).toEqual([
      'default:agent_failure:t-9',
      'other:agent_failure:t-9',
    ]);
  });

  it('describes the most severe tag of the session in the batch', async () => {
    const { sink, alerts } = setup();
    alerts.observe([span('tool_failure'), span('timeout', { toolName: 'slow_tool' })]);
    await alerts.settled();
    expect(sink.fired[0]?.message).toContain('timeout on filesystem/slow_tool');
  });

  it('tries again with a later batch when the sink failed', async () => {
    const { sink, alerts } = setup();
    const fire = sink.fire.bind(sink);
    let calls = 0;
    sink.fire = (input: FireInput): Promise<Alert | null> =>
      ++calls === 1 ? Promise.reject(new Error('database gone')) : fire(input);
    alerts.observe([span('tool_failure')]);
    await alerts.settled();
    expect(sink.fired).toHaveLength(0);
    alerts.observe([span('tool_failure')]);
    await alerts.settled();
    expect(sink.fired).toHaveLength(1);
  });
});

describe('SDK guard tags', () => {
  it('fire their own type once per session each, budget as critical, loop and breaker as warnings', async () => {
    const { sink, alerts } = setup();
    alerts.observe([span('loop_detected'), span('loop_detected'), span('budget_exceeded')]);
    alerts.observe([
      span('circuit_breaker_open'),
      span('loop_detected'),
      span('loop_detected', { sessionId: 'session-2' }),
    ]);
    await alerts.settled();
    const guards = sink.fired
      .filter((f) => f.type !== 'agent_failure')
      .map((f) => [f.type, f.severity, f.sessionId]);
    expect(guards.sort()).toEqual(
      [
        ['budget_exceeded', 'critical', 'session-1'],
        ['circuit_breaker_open', 'warning', 'session-1'],
        ['loop_detected', 'warning', 'session-1'],
        ['loop_detected', 'warning', 'session-2'],
      ].sort(),
    );
    expect(
      sink.fired
        .filter((f) => f.type === 'agent_failure')
        .map((f) => f.sessionId)
        .sort(),
    ).toEqual(['session-1', 'session-2']);
    const loop = sink.fired.find((f) => f.type === 'loop_detected');
    expect(loop?.title).toBe('Agent planner: loop detected in session session-1');
    expect(loop?.dedupKey).toBe('loop_detected:session-1');
  });
});

describe('cost on healthy traffic', () => {
  it('a batch without unhealthy tags hands nothing to the sink, after one pass over it', async () => {
    const { sink, alerts } = setup();
    // The cost is counted, not timed (speed is for `npm run bench`): one pass that reads each
    // span's tag (a few times at most) and touches no other field of a healthy span.
    let tagReads = 0;
    let otherReads = 0;
    const batch = Array.from({ length: 10_000 }, () => {
      const s = span('success');
      return new Proxy(s, {
        get: (target, prop, receiver) => {
          if (prop === 'healthTag') tagReads++;
          else otherReads++;
          return Reflect.get(target, prop, receiver) as unknown;
        },
      });
    });
    alerts.observe(batch);
    await alerts.settled();
    expect(sink.fired).toEqual([]);
    expect(tagReads).toBeGreaterThanOrEqual(10_000);
    expect(tagReads).toBeLessThanOrEqual(3 * 10_000);
    expect(otherReads).toBe(0);
  });
});
