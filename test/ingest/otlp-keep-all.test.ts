import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';

const T0 = Date.parse('2026-11-21T09:00:00.000Z');

function configFile(yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'spyglass-keep-all-')), 'spyglass.yaml');
  writeFileSync(path, yaml);
  return path;
}

/** A tool call with the HTTP call it made, and an unrelated health-check trace, in one export. */
async function emit(server: TestServer, session: string): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'keep-all-app' }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${server.httpUrl}/v1/traces` }), {
        scheduledDelayMillis: 60_000,
      }),
    ],
  });
  const tracer = provider.getTracer('keep-all');
  const agent = tracer.startSpan('invoke_agent booker', {
    startTime: new Date(T0),
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'booker',
      'session.id': session,
    },
  });
  const tool = tracer.startSpan(
    'execute_tool book_hotel',
    {
      startTime: new Date(T0 + 10),
      attributes: {
        'gen_ai.tool.name': 'book_hotel',
        'mcp.server.name': 'hotels',
        'gen_ai.agent.name': 'booker',
        'session.id': session,
      },
    },
    trace.setSpan(context.active(), agent),
  );
  const http = tracer.startSpan(
    'POST',
    {
      startTime: new Date(T0 + 12),
      attributes: {
        'http.request.method': 'POST',
        'server.address': 'hotels.internal',
        'http.response.status_code': 503,
      },
    },
    trace.setSpan(context.active(), tool),
  );
  http.setStatus({ code: 2, message: 'upstream unavailable' });
  http.end(new Date(T0 + 40));
  tracer
    .startSpan(
      'SELECT rooms',
      {
        startTime: new Date(T0 + 41),
        attributes: { 'db.system.name': 'postgresql', 'db.query.text': 'select * from rooms' },
      },
      trace.setSpan(context.active(), tool),
    )
    .end(new Date(T0 + 45));
  tool.end(new Date(T0 + 50));
  agent.end(new Date(T0 + 60));
  tracer
    .startSpan('GET /healthz', {
      startTime: new Date(T0 + 70),
      attributes: { 'http.request.method': 'GET' },
    })
    .end(new Date(T0 + 71));
  await provider.shutdown();
}

describe('ingest.otlp_keep_all_spans', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      SPYGLASS_RATE_LIMITS: 'off',
      SPYGLASS_CONFIG: configFile('ingest:\n  otlp_keep_all_spans: true\n'),
    });
  });
  afterAll(async () => server?.dispose());

  it('is a validated boolean, off by default', () => {
    expect(loadConfig({}, tmpdir()).ingest.otlpKeepAllSpans).toBe(false);
    expect(() =>
      loadConfig(
        { SPYGLASS_CONFIG: configFile('ingest: { otlp_keep_all_spans: sometimes }\n') },
        tmpdir(),
      ),
    ).toThrow(ConfigError);
    expect(() =>
      loadConfig(
        { SPYGLASS_CONFIG: configFile('ingest: { otlp_keep_all_spans: sometimes }\n') },
        tmpdir(),
      ),
    ).toThrow('ingest.otlp_keep_all_spans must be true or false (got "sometimes")');
  });

  it('keeps the HTTP and database calls of a selected trace as generic spans in its session tree, and nothing else', async () => {
    await emit(server, 'keep-all-1');
    const spans = (await getJson(`${server.httpUrl}/api/traces/spans?session_id=keep-all-1`))
      .json as any[];
    const tool = spans.find((s) => s.tool_name === 'book_hotel');
    expect(spans.map((s) => `${s.span_type}:${s.tool_name}`).sort()).toEqual([
      'agent:invoke_agent booker',
      'generic:POST',
      'generic:SELECT rooms',
      'tool_call:book_hotel',
    ]);
    expect(spans.find((s) => s.tool_name === 'POST')).toMatchObject({
      parent_span_id: tool.span_id,
      trace_id: tool.trace_id,
      server_name: 'hotels.internal',
      agent_name: 'booker',
      status: 'error',
      error: 'upstream unavailable',
      latency_ms: 28,
      input_args: { 'http.request.method': 'POST', 'http.response.status_code': 503 },
      cost_usd: null,
    });
    expect(spans.find((s) => s.tool_name === 'SELECT rooms')).toMatchObject({
      server_name: 'postgresql',
      parent_span_id: tool.span_id,
    });
    // The health check's trace had nothing selected: still not stored.
    expect(
      (await getJson(`${server.httpUrl}/api/traces/spans?span_type=generic&limit=100`)).json,
    ).toHaveLength(2);

    // Generic spans are in the tree, but not in the session's counts, the catalog or the lineage.
    const detail = (await getJson(`${server.httpUrl}/api/agents/sessions/keep-all-1`)).json;
    expect(detail.session).toMatchObject({
      span_count: 2,
      tool_calls: 1,
      failed_calls: 0,
      servers_used: ['hotels'],
    });
    // Auto-registration runs after the commit; the agent's names arrive in one insert with any others.
    const names = async (kind: string) =>
      ((await getJson(`${server.httpUrl}/api/${kind}/metadata`)).json as any[]).map((x) => x.name);
    await expect.poll(() => names('agents')).toContain('booker');
    await expect.poll(() => names('servers')).toContain('hotels');
    expect([...(await names('agents')), ...(await names('servers'))]).not.toEqual(
      expect.arrayContaining(['hotels.internal']),
    );
    expect([...(await names('agents')), ...(await names('servers'))]).not.toEqual(
      expect.arrayContaining(['postgresql']),
    );
    const lineage = (
      await getJson(
        `${server.httpUrl}/api/agents/lineage?since=2026-11-21T00:00:00Z&until=2026-11-22T00:00:00Z`,
      )
    ).json;
    // One run, one call, no errors (the failed HTTP call is not a failed run).
    expect(lineage.nodes.find((n: any) => n.id === 'agent:booker')).toMatchObject({
      calls: 1,
      errors: 0,
    });
    expect(lineage.edges).toEqual([
      expect.objectContaining({
        source: 'agent:booker',
        target: 'server:hotels',
        calls: 1,
        errors: 0,
      }),
    ]);
  });
});
