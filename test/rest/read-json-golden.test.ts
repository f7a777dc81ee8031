import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Span } from '../../src/model/span.ts';
import { insertSpans } from '../../src/store/spans-repo.ts';
import { backends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { span } from '../helpers/spans.ts';

/**
 * The read endpoints' JSON, byte for byte, against files the code before the read-path work of
 * issue 28 target 5 wrote (docs/benchmarks.md): that work reads spans without drizzle's mapping
 * and maps them to JSON without spreads, and must change no byte of what a client gets. The spans
 * cover every field, times with microseconds, JSON arguments with nesting, escapes and non-ASCII,
 * LangSight's further fields, a parent that is absent and a session keyed by its trace id.
 * `UPDATE_READ_JSON=1` rewrites the files (only ever from the code before such a change).
 */
const DIR = new URL('../fixtures/read-json/', import.meta.url);
const P = 'golden';
const t = (iso: string) => new Date(iso);

function fixtureSpans(): Span[] {
  const base = { projectId: P, traceId: 'trace-golden', sessionId: 'session-golden' };
  return [
    span(P, t('2026-01-02T10:00:00.000Z'), {
      ...base,
      spanId: 'a-root',
      spanType: 'agent',
      serverName: '',
      toolName: 'plan the trip',
      agentName: 'planner',
      endedAt: t('2026-01-02T10:00:09.500Z'),
      startedAtMicros: 123,
      endedAtMicros: 7,
      latencyMs: 9500.123,
    }),
    span(P, t('2026-01-02T10:00:00.250Z'), {
      ...base,
      spanId: 'b-llm',
      parentSpanId: 'a-root',
      spanType: 'llm_intent',
      serverName: 'anthropic',
      toolName: 'chat',
      llmInput: 'Plan a trip to Zürich — "quickly"\nwith \\ and \t tabs',
      llmOutput: '{"tool": "search"}',
      inputTokens: 1200,
      outputTokens: 340,
      modelId: 'claude-sonnet',
      costUsd: 0.30000000000000004,
      costEstimated: false,
      finishReason: 'tool_use',
      cacheReadTokens: 50,
      cacheCreationTokens: 0,
      thinkingTokens: 12,
      schemaVersion: '1.2',
      latencyMs: 0.1,
    }),
    span(P, t('2026-01-02T10:00:01.000Z'), {
      ...base,
      spanId: 'c-tool',
      parentSpanId: 'a-root',
      serverName: 'search',
      toolName: 'web_search',
      inputArgs: { query: 'hotels ✓', filters: { stars: [4, 5], near: null }, page: 2.5 },
      outputResult: '[{"name":"Hôtel"}]',
      startedAtMicros: 999,
      endedAtMicros: 1,
      healthTag: 'success',
    }),
    span(P, t('2026-01-02T10:00:01.000Z'), {
      ...base,
      spanId: 'd-tool-same-ms',
      parentSpanId: 'a-root',
      serverName: 'search',
      toolName: 'web_search',
      status: 'error',
      error: 'upstream returned 502',
      inputArgs: {},
      costUsd: 1e-7,
      costEstimated: true,
    }),
    span(P, t('2026-01-02T10:00:02.000Z'), {
      ...base,
      spanId: 'e-handoff',
      parentSpanId: 'a-root',
      spanType: 'handoff',
      serverName: '',
      toolName: 'to booker',
      targetAgentName: 'booker',
      lineageProvenance: 'explicit',
      lineageStatus: 'complete',
    }),
    span(P, t('2026-01-02T10:00:03.000Z'), {
      ...base,
      spanId: 'f-sub-agent',
      parentSpanId: 'e-handoff',
      spanType: 'agent',
      serverName: '',
      toolName: 'book',
      agentName: 'booker',
    }),
    span(P, t('2026-01-02T10:00:04.000Z'), {
      ...base,
      spanId: 'g-prevented',
      parentSpanId: 'f-sub-agent',
      serverName: 'payments',
      toolName: 'charge',
      agentName: 'booker',
      status: 'prevented',
      error: 'loop detected',
      replayOf: 'c-tool',
    }),
    span(P, t('2026-01-02T10:00:05.000Z'), {
      ...base,
      spanId: 'h-orphan',
      parentSpanId: 'not-stored',
      spanType: 'generic',
      serverName: 'http',
      toolName: 'GET /',
      status: 'timeout',
    }),
    // A session without a session id: keyed by its trace.
    span(P, t('2026-01-02T11:00:00.000Z'), {
      spanId: 'x-root',
      traceId: 'trace-only',
      spanType: 'agent',
      serverName: '',
      toolName: 'run',
    }),
    span(P, t('2026-01-02T11:00:00.500Z'), {
      spanId: 'y-child',
      traceId: 'trace-only',
      parentSpanId: 'x-root',
      inputArgs: { 'key with "quotes"': ['a', 1, true] },
    }),
  ];
}

const READS: Record<string, string> = {
  'session-tree': `/api/agents/sessions/session-golden?project_id=${P}`,
  'session-tree-by-trace': `/api/agents/sessions/trace-only`,
  'spans-list': `/api/traces/spans?project_id=${P}&limit=100`,
  'spans-by-trace': `/api/traces/spans?trace_id=trace-golden`,
  'spans-list-page': `/api/traces/spans?project_id=${P}&limit=3`,
  'spans-list-all': `/api/traces/spans?limit=100`,
  // The sessions lists (the fixture's day is long past: a window from before it).
  'sessions-list': `/api/agents/sessions?since=2026-01-01T00:00:00Z`,
  'sessions-list-project': `/api/agents/sessions?project_id=${P}&since=2026-01-01T00:00:00Z&limit=1`,
  'sessions-list-agent': `/api/agents/sessions?agent_name=planner&since=2026-01-01T00:00:00Z`,
  // A day (whole 4-hour blocks and hours at both ends) and an hour (hours only).
  lineage: `/api/agents/lineage?project_id=${P}&since=2026-01-02T02:30:00Z&until=2026-01-03T01:00:00Z`,
  'lineage-hours': `/api/agents/lineage?since=2026-01-02T10:00:00Z&until=2026-01-02T11:30:00Z`,
};

describe.each(backends.filter((b) => b.available))('read JSON on $name', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(await backend.env());
    await insertSpans(server.services.store.db, fixtureSpans());
  }, 120_000);
  afterAll(async () => server?.dispose());

  it.each(Object.entries(READS))('%s is byte-identical', async (name, path) => {
    const res = await fetch(server.httpUrl + path);
    expect(res.status).toBe(200);
    const body = await res.text();
    const file = new URL(`${name}.json`, DIR);
    if (process.env.UPDATE_READ_JSON === '1') {
      mkdirSync(DIR, { recursive: true });
      if (backend.name === 'pglite' || !existsSync(file)) writeFileSync(file, body);
    }
    expect(body).toBe(readFileSync(file, 'utf8'));
  });

  // The tree reads the session's row and, with the project given, its spans at once: a session of
  // another project is still not found, and nothing of its spans is answered.
  it('answers 404 for a session asked in another project', async () => {
    const res = await fetch(`${server.httpUrl}/api/agents/sessions/session-golden?project_id=nope`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('a-root');
  });
});
