import { describe, expect, it } from 'vitest';
import { compareSessions, toolCallsOf, type CompareCall } from '../../ui/src/lib/compare.ts';

let n = 0;
const call = (tool: string, extra: Partial<CompareCall> = {}): CompareCall => ({
  spanId: `s${n++}`,
  agentName: 'planner',
  serverName: 'fs',
  toolName: tool,
  status: 'success',
  latencyMs: 10,
  startedAt: n,
  inputTokens: 5,
  outputTokens: 5,
  costUsd: 0.01,
  ...extra,
});
const shape = (c: ReturnType<typeof compareSessions>) =>
  c.rows.map((r) => `${r.kind}:${r.a?.toolName ?? '-'}/${r.b?.toolName ?? '-'}`);

describe('compareSessions', () => {
  it('aligns by (agent, server, tool) sequence and pairs replaced calls', () => {
    const a = [call('list'), call('read'), call('write'), call('close')];
    const b = [call('list'), call('read'), call('grep'), call('close'), call('log')];
    expect(shape(compareSessions(a, b))).toEqual([
      'same:list/list',
      'same:read/read',
      'replaced:write/grep',
      'same:close/close',
      'only-b:-/log',
    ]);
  });

  it('treats the same tool on another server or agent as a different call', () => {
    const a = [call('read'), call('read', { serverName: 'web' })];
    const b = [call('read', { agentName: 'coder' }), call('read', { serverName: 'web' })];
    expect(shape(compareSessions(a, b))).toEqual(['replaced:read/read', 'same:read/read']);
  });

  it('reports differences in status, latency, tokens and cost, and totals', () => {
    const a = [call('read'), call('write', { costUsd: null })];
    const b = [
      call('read', { status: 'error', latencyMs: 25, outputTokens: 20, costUsd: 0.03 }),
      call('write'),
    ];
    const cmp = compareSessions(a, b);
    expect(cmp.rows[0]).toMatchObject({ statusChanged: true, latencyDeltaMs: 15, tokensDelta: 15 });
    expect(cmp.rows[0]!.costDeltaUsd).toBeCloseTo(0.02);
    expect(cmp.rows[1]).toMatchObject({
      statusChanged: false,
      latencyDeltaMs: 0,
      costDeltaUsd: null,
    });
    expect(cmp.totals.a).toMatchObject({ calls: 2, failures: 0, latencyMs: 20, tokens: 20 });
    expect(cmp.totals.b).toMatchObject({ calls: 2, failures: 1, latencyMs: 35, tokens: 35 });
  });

  it('handles empty sides', () => {
    expect(shape(compareSessions([], [call('x')]))).toEqual(['only-b:-/x']);
    expect(shape(compareSessions([call('x')], []))).toEqual(['only-a:x/-']);
    expect(compareSessions([], []).rows).toEqual([]);
  });
});

describe('toolCallsOf', () => {
  it('keeps tool calls in start order', () => {
    const spans = [
      call('b', { startedAt: '2026-01-01T00:00:02Z' }),
      call('agent', { spanType: 'agent' }),
      call('a', { startedAt: '2026-01-01T00:00:01Z' }),
    ];
    expect(toolCallsOf(spans).map((c) => c.toolName)).toEqual(['a', 'b']);
  });
});
