/**
 * Two sessions' tool calls side by side: aligned by their (agent, server, tool) sequence with the
 * `diff` package's Myers array diff, each row carrying the differences in status, latency, tokens
 * and cost, plus totals for each side.
 */
import { diffArrays } from 'diff';

/** The fields of a GraphQL `Span` the comparison reads (`costUsd` when a query supplies it). */
export interface CompareCall {
  spanId: string;
  spanType?: string;
  agentName?: string | null;
  serverName: string;
  toolName: string;
  status: string;
  latencyMs: number;
  startedAt: string | number | Date;
  inputTokens?: number | null;
  outputTokens?: number | null;
  costUsd?: number | null;
}

/** same: the same call in both; replaced: a call of A where B made another; only-a / only-b. */
export type AlignKind = 'same' | 'replaced' | 'only-a' | 'only-b';

export interface AlignedRow<C extends CompareCall = CompareCall> {
  kind: AlignKind;
  a: C | null;
  b: C | null;
  statusChanged: boolean;
  /** b - a, null unless both sides have the value. */
  latencyDeltaMs: number | null;
  tokensDelta: number | null;
  costDeltaUsd: number | null;
}

export interface CompareTotals {
  calls: number;
  failures: number;
  latencyMs: number;
  tokens: number;
  costUsd: number;
}

export interface Comparison<C extends CompareCall = CompareCall> {
  rows: AlignedRow<C>[];
  totals: { a: CompareTotals; b: CompareTotals };
}

const keyOf = (c: CompareCall) => JSON.stringify([c.agentName ?? '', c.serverName, c.toolName]);
const tokensOf = (c: CompareCall) =>
  c.inputTokens == null && c.outputTokens == null
    ? null
    : (c.inputTokens ?? 0) + (c.outputTokens ?? 0);
const delta = (a: number | null | undefined, b: number | null | undefined) =>
  a == null || b == null ? null : b - a;
const ms = (v: string | number | Date) => (typeof v === 'number' ? v : new Date(v).getTime());

/** A session's spans as its tool calls in start order (other span types dropped). */
export function toolCallsOf<C extends CompareCall>(spans: readonly C[]): C[] {
  return spans
    .filter((s) => (s.spanType ?? 'tool_call') === 'tool_call')
    .sort((x, y) => ms(x.startedAt) - ms(y.startedAt));
}

function row<C extends CompareCall>(kind: AlignKind, a: C | null, b: C | null): AlignedRow<C> {
  return {
    kind,
    a,
    b,
    statusChanged: !!a && !!b && a.status !== b.status,
    latencyDeltaMs: delta(a?.latencyMs, b?.latencyMs),
    tokensDelta: a && b ? delta(tokensOf(a), tokensOf(b)) : null,
    costDeltaUsd: delta(a?.costUsd, b?.costUsd),
  };
}

function totalsOf(calls: readonly CompareCall[]): CompareTotals {
  const t: CompareTotals = {
    calls: calls.length,
    failures: 0,
    latencyMs: 0,
    tokens: 0,
    costUsd: 0,
  };
  for (const c of calls) {
    if (c.status !== 'success') t.failures++;
    t.latencyMs += c.latencyMs;
    t.tokens += tokensOf(c) ?? 0;
    t.costUsd += c.costUsd ?? 0;
  }
  return t;
}

/** `a` and `b` are each session's tool calls in order (see toolCallsOf). */
export function compareSessions<C extends CompareCall>(
  a: readonly C[],
  b: readonly C[],
): Comparison<C> {
  const rows: AlignedRow<C>[] = [];
  let i = 0;
  let j = 0;
  let removed: C[] = [];
  const flushRemoved = (added: C[]) => {
    const n = Math.max(removed.length, added.length);
    for (let k = 0; k < n; k++) {
      const x = removed[k] ?? null;
      const y = added[k] ?? null;
      rows.push(row(x && y ? 'replaced' : x ? 'only-a' : 'only-b', x, y));
    }
    removed = [];
  };
  for (const part of diffArrays(a.map(keyOf), b.map(keyOf))) {
    const count = part.value.length;
    if (part.removed) {
      removed = a.slice(i, (i += count));
    } else if (part.added) {
      flushRemoved(b.slice(j, (j += count)));
    } else {
      flushRemoved([]);
      for (let k = 0; k < count; k++) rows.push(row('same', a[i++]!, b[j++]!));
    }
  }
  flushRemoved([]);
  return { rows, totals: { a: totalsOf(a), b: totalsOf(b) } };
}
