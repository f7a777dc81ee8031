import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWs, type Subscription, type WsSession } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan, postJson } from '../helpers/spans.ts';
import { SseClient } from '../helpers/sse.ts';

/**
 * The live events' wire, byte for byte (docs/api.md#live-events-sse): the bus carries domain
 * events and the SSE stream and GraphQL subscriptions map them. These frames are what the stream
 * sent before the bus changed, so a mapping that drifts (a key renamed, reordered or dropped, a
 * time losing its microseconds) fails here.
 */
const ADMIN = `sg_${'w'.repeat(64)}`;
const auth = { 'x-api-key': ADMIN };
let server: TestServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sg-wire-'));
  const cfg = join(dir, 'spyglass.yaml');
  writeFileSync(
    cfg,
    [
      'monitor:',
      '  health_check_interval_seconds: 3600',
      'servers:',
      '  - name: wire-dead',
      '    transport: streamable_http',
      '    url: http://127.0.0.1:9/mcp',
      '',
    ].join('\n'),
  );
  server = await startTestServer({
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
    SPYGLASS_CONFIG: cfg,
  });
});
afterAll(async () => {
  await server?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const ERROR = `E${'x'.repeat(700)}`;
/** Every field a span:new frame carries, with microsecond times and a long error. */
const full = nativeSpan({
  span_id: 'wire-full',
  trace_id: 'wire-trace',
  parent_span_id: 'wire-parent',
  session_id: 'wire-golden',
  agent_name: 'planner',
  span_type: 'tool_call',
  server_name: 'filesystem',
  tool_name: 'read_file',
  started_at: '2026-11-26T10:00:00.123456Z',
  ended_at: '2026-11-26T10:00:00.223789Z',
  latency_ms: 100.333,
  status: 'error',
  error: ERROR,
  model_id: 'gpt-4o',
  input_tokens: 1000,
  output_tokens: 200,
  health_tag: 'tool_failure',
  target_agent_name: 'helper',
  finish_reason: 'end_turn',
  cache_read_tokens: 30,
  cache_creation_tokens: 40,
  thinking_tokens: 50,
  lineage_provenance: 'explicit',
  lineage_status: 'complete',
  schema_version: '1.2',
  replay_of: 'wire-original',
});
/** A root agent span with millisecond times and nothing optional. */
const root = nativeSpan({
  span_id: 'wire-root',
  trace_id: null,
  parent_span_id: null,
  session_id: 'wire-golden',
  agent_name: null,
  span_type: 'agent',
  server_name: 'agent',
  tool_name: 'run',
  started_at: '2026-11-26T10:00:01.000Z',
  ended_at: '2026-11-26T10:00:02.500Z',
  latency_ms: 1500,
  status: 'success',
});

const FULL_FRAME =
  '{"session_id":"wire-golden","agent_name":"planner","server_name":"filesystem","tool_name":"read_file",' +
  '"status":"error","latency_ms":100.333,"project_id":"default","span_id":"wire-full","trace_id":"wire-trace",' +
  '"parent_span_id":"wire-parent","span_type":"tool_call","started_at":"2026-11-26T10:00:00.123456Z",' +
  '"ended_at":"2026-11-26T10:00:00.223789Z","model_id":"gpt-4o","input_tokens":1000,"output_tokens":200,' +
  `"cost_usd":COST,"health_tag":"tool_failure","error":"${ERROR.slice(0, 500)}","target_agent_name":"helper",` +
  '"finish_reason":"end_turn","cache_read_tokens":30,"cache_creation_tokens":40,"thinking_tokens":50,' +
  '"lineage_provenance":"explicit","lineage_status":"complete","schema_version":"1.2","replay_of":"wire-original"}';
const ROOT_FRAME =
  '{"session_id":"wire-golden","agent_name":null,"server_name":"agent","tool_name":"run","status":"success",' +
  '"latency_ms":1500,"project_id":"default","span_id":"wire-root","trace_id":null,"parent_span_id":null,' +
  '"span_type":"agent","started_at":"2026-11-26T10:00:01.000Z","ended_at":"2026-11-26T10:00:02.500Z",' +
  '"model_id":null,"input_tokens":null,"output_tokens":null,"cost_usd":null,"health_tag":null,"error":null,' +
  '"target_agent_name":null,"finish_reason":null,"cache_read_tokens":null,"cache_creation_tokens":null,' +
  '"thinking_tokens":null,"lineage_provenance":null,"lineage_status":null,"schema_version":null,"replay_of":null}';

const SPAN_FIELDS = `spanId traceId parentSpanId error sessionId agentName serverName toolName spanType status
  latencyMs projectId startedAt modelId inputTokens outputTokens targetAgentName finishReason cacheReadTokens
  cacheCreationTokens thinkingTokens lineageProvenance lineageStatus schemaVersion replayOf`;

/** Calls `act` until the subscription got what `seen` looks for (subscribing is asynchronous). */
async function until(
  sub: Subscription,
  act: () => Promise<unknown>,
  seen: () => boolean = () => sub.received.length > 0,
): Promise<void> {
  for (let i = 0; i < 100 && !seen(); i++) {
    await act();
    await Promise.race([sub.count(sub.received.length + 1), new Promise((r) => setTimeout(r, 50))]);
  }
  expect(seen()).toBe(true);
}

describe('the live wire', () => {
  let sse: SseClient;
  let ws: WsSession;
  let spans: Subscription;
  let health: Subscription;
  let alerts: Subscription;
  beforeAll(async () => {
    sse = await SseClient.open(`${server.httpUrl}/api/live/events`, auth);
    ws = await openWs(server.httpUrl, { apiKey: ADMIN });
    spans = ws.subscribe(`subscription { spanNew(sessionId: "wire-golden") { ${SPAN_FIELDS} } }`);
    health = ws.subscribe('subscription { healthCheck { serverName status latencyMs } }');
    alerts = ws.subscribe('subscription { alertFired { data } }');
  });
  afterAll(async () => {
    sse?.close();
    await ws?.dispose();
  });

  it('span:new: the same frames over SSE, the same fields in camelCase over GraphQL', async () => {
    expect((await postJson(`${server.httpUrl}/api/traces/spans`, [full], auth)).status).toBe(202);
    await sse.waitFor(() => sse.events.some((e) => e.data.includes('"wire-full"')), 10_000);
    await until(spans, () => postJson(`${server.httpUrl}/api/traces/spans`, [root], auth));
    await sse.waitFor(() => sse.events.some((e) => e.data.includes('"wire-root"')), 10_000);
    const frames = sse.events.filter((e) => e.data.includes('"wire-golden"'));
    const [fullFrame, rootFrame] = [frames[0], frames.at(-1)];
    expect(fullFrame?.event).toBe('span:new');
    expect(fullFrame?.id).toMatch(/^\d+$/);
    const cost = (JSON.parse(fullFrame?.data ?? '{}') as { cost_usd: number }).cost_usd;
    expect(cost).toBeTypeOf('number');
    expect(fullFrame?.data).toBe(FULL_FRAME.replace('COST', String(cost)));
    expect(rootFrame?.data).toBe(ROOT_FRAME);
    await expect
      .poll(() => spans.received.find((r) => r.spanNew.spanId === 'wire-root'), {
        timeout: 10_000,
      })
      .toEqual({
        spanNew: {
          spanId: 'wire-root',
          traceId: null,
          parentSpanId: null,
          error: null,
          sessionId: 'wire-golden',
          agentName: null,
          serverName: 'agent',
          toolName: 'run',
          spanType: 'agent',
          status: 'success',
          latencyMs: 1500,
          projectId: 'default',
          startedAt: '2026-11-26T10:00:01.000Z',
          modelId: null,
          inputTokens: null,
          outputTokens: null,
          targetAgentName: null,
          finishReason: null,
          cacheReadTokens: null,
          cacheCreationTokens: null,
          thinkingTokens: null,
          lineageProvenance: null,
          lineageStatus: null,
          schemaVersion: null,
          replayOf: null,
        },
      });
    const again = { ...full, span_id: 'wire-full-2' };
    await postJson(`${server.httpUrl}/api/traces/spans`, [again], auth);
    await expect
      .poll(() => spans.received.find((r) => r.spanNew.spanId === 'wire-full-2'), {
        timeout: 10_000,
      })
      .toEqual({
        spanNew: {
          spanId: 'wire-full-2',
          traceId: 'wire-trace',
          parentSpanId: 'wire-parent',
          error: ERROR.slice(0, 500),
          sessionId: 'wire-golden',
          agentName: 'planner',
          serverName: 'filesystem',
          toolName: 'read_file',
          spanType: 'tool_call',
          status: 'error',
          latencyMs: 100.333,
          projectId: 'default',
          startedAt: '2026-11-26T10:00:00.123Z',
          modelId: 'gpt-4o',
          inputTokens: 1000,
          outputTokens: 200,
          targetAgentName: 'helper',
          finishReason: 'end_turn',
          cacheReadTokens: 30,
          cacheCreationTokens: 40,
          thinkingTokens: 50,
          lineageProvenance: 'explicit',
          lineageStatus: 'complete',
          schemaVersion: '1.2',
          replayOf: 'wire-original',
        },
      });
  });

  it('health:check and alert:fired: the same frames over SSE and GraphQL', async () => {
    const check = async () => {
      const svc = server.services.health;
      await svc.checkAll(await svc.targets('default'));
    };
    await until(health, check, () =>
      health.received.some((r) => r.healthCheck.serverName === 'wire-dead'),
    );
    await sse.waitFor(() => sse.events.some((e) => e.event === 'health:check'), 10_000);
    for (const h of sse.events.filter((e) => e.event === 'health:check')) {
      const latency = (JSON.parse(h.data) as { latency_ms: unknown }).latency_ms;
      expect(h.data).toBe(
        JSON.stringify({
          server_name: 'wire-dead',
          status: 'down',
          latency_ms: latency,
          project_id: 'default',
        }),
      );
    }
    const first = health.received.find((r) => r.healthCheck.serverName === 'wire-dead') as {
      healthCheck: { latencyMs: unknown };
    };
    expect(first).toEqual({
      healthCheck: {
        serverName: 'wire-dead',
        status: 'down',
        latencyMs: first.healthCheck.latencyMs,
      },
    });

    let n = 0;
    const fired: { id: string; firedAt: Date }[] = [];
    const mine = () =>
      alerts.received.find((r) => fired.some((f) => f.id === r.alertFired.data.id));
    const act = async () => {
      const a = await server.services.alerts.fire({
        type: 'mcp_down',
        severity: 'critical',
        title: 'MCP server wire-dead is down',
        message: '3 consecutive checks failed.',
        projectId: 'default',
        serverName: 'wire-dead',
        dedupKey: `mcp_down:wire-${n++}`,
        dedupScope: 'open',
        fields: { consecutive_failures: 3, note: 'a "quoted" <b>' },
      });
      if (a) fired.push(a);
    };
    await until(alerts, act, () => mine() !== undefined);
    // The first of ours the subscription got (those before it may have come too early for it).
    const gql = mine() as { alertFired: { data: { id: string } } };
    const a = fired.find((f) => f.id === gql.alertFired.data.id) as { id: string; firedAt: Date };
    await sse.waitFor(() => sse.events.some((e) => e.data.includes(a.id)), 10_000);
    const expected =
      `{"id":"${a.id}","type":"mcp_down","severity":"critical","title":"MCP server wire-dead is down",` +
      '"message":"3 consecutive checks failed.","project_id":"default","server_name":"wire-dead",' +
      `"agent_name":null,"session_id":null,"status":"firing","fired_at":"${a.firedAt.toISOString()}",` +
      '"acknowledged_at":null,"resolved_at":null,"snoozed_until":null,' +
      '"fields":{"note":"a \\"quoted\\" <b>","consecutive_failures":3},"delivery":"pending","delivery_error":null}';
    const frame = sse.events.find((e) => e.data.includes(a.id));
    expect(frame?.event).toBe('alert:fired');
    expect(frame?.data).toBe(expected);
    expect(gql).toEqual({ alertFired: { data: JSON.parse(expected) } });
  });
});
