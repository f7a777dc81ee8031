import { describe, expect, it } from 'vitest';
import { buildSpanTree, type TreeSpan } from '../../ui/src/lib/span-tree.ts';
import { criticalPath, expandAll, flattenRows, guardOutcome } from '../../ui/src/lib/span-rows.ts';
import { ancestorIds, searchSpans, stepMatch } from '../../ui/src/lib/span-search.ts';
import { compressIdleGaps, linearAxis } from '../../ui/src/lib/time-axis.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
function span(
  id: string,
  parent: string | null,
  start: number,
  end: number,
  extra: Partial<TreeSpan> = {},
): TreeSpan {
  return {
    spanId: id,
    parentSpanId: parent,
    startedAt: new Date(T0 + start).toISOString(),
    endedAt: new Date(T0 + end).toISOString(),
    status: 'success',
    spanType: 'tool_call',
    ...extra,
  };
}

describe('buildSpanTree', () => {
  it('nests children in start order and spans the session', () => {
    const tree = buildSpanTree([
      span('c2', 'r', 50, 90),
      span('r', null, 0, 100),
      span('c1', 'r', 10, 40),
      span('g', 'c1', 20, 30),
    ]);
    expect(tree.order.map((n) => `${n.id}@${n.depth}`)).toEqual(['r@0', 'c1@1', 'g@2', 'c2@1']);
    expect([tree.start, tree.end]).toEqual([T0, T0 + 100]);
  });

  it('derives the end from latencyMs when endedAt is absent and keeps the first duplicate', () => {
    const tree = buildSpanTree([
      { spanId: 'a', startedAt: T0, latencyMs: 25, status: 'success', spanType: 'agent' },
      { spanId: 'a', startedAt: T0 + 5, latencyMs: 1, status: 'error', spanType: 'agent' },
    ]);
    expect(tree.order).toHaveLength(1);
    expect(tree.byId.get('a')).toMatchObject({ start: T0, end: T0 + 25 });
    expect(tree.byId.get('a')!.span.status).toBe('success');
  });

  it('hangs orphans under the first root, flagged', () => {
    const tree = buildSpanTree([
      span('r', null, 0, 100),
      span('o', 'missing', 5, 10),
      span('oc', 'o', 6, 7),
    ]);
    expect(tree.roots.map((n) => n.id)).toEqual(['r']);
    expect(tree.order.map((n) => `${n.id}@${n.depth}`)).toEqual(['r@0', 'o@1', 'oc@2']);
    expect(tree.byId.get('o')!.orphan).toBe(true);
  });

  it('cuts parent loops, including a span that is its own parent, and loses no span', () => {
    const tree = buildSpanTree([
      span('r', null, 0, 100),
      span('a', 'b', 10, 20),
      span('b', 'a', 15, 25),
      span('under', 'a', 11, 12),
      span('self', 'self', 30, 40),
    ]);
    expect(new Set(tree.order.map((n) => n.id))).toEqual(new Set(['r', 'a', 'b', 'under', 'self']));
    for (const n of tree.order) expect(n.depth).toBe(n.parent ? n.parent.depth + 1 : 0);
    expect(
      tree.order
        .filter((n) => n.orphan)
        .map((n) => n.id)
        .sort(),
    ).toEqual(['a', 'self']);
  });

  it('survives a session that is nothing but a loop', () => {
    const tree = buildSpanTree([span('a', 'b', 0, 10), span('b', 'a', 1, 5)]);
    expect(tree.roots.map((n) => n.id)).toEqual(['a']);
    expect(tree.order.map((n) => n.id)).toEqual(['a', 'b']);
  });

  it('counts failed and prevented spans below each node', () => {
    const tree = buildSpanTree([
      span('r', null, 0, 100),
      span('a', 'r', 1, 50),
      span('e', 'a', 2, 3, { status: 'error' }),
      span('p', 'r', 60, 61, { status: 'prevented' }),
    ]);
    expect(tree.byId.get('r')!.problemsBelow).toBe(2);
    expect(tree.byId.get('a')!.problemsBelow).toBe(1);
  });
});

describe('flattenRows', () => {
  const tree = buildSpanTree([
    span('r', null, 0, 100),
    span('a', 'r', 0, 50),
    span('b', 'a', 25, 50),
    span('c', 'r', 50, 100),
  ]);

  it('shows only what the expanded set opens, with bars on the shared axis', () => {
    expect(flattenRows(tree, { expanded: new Set() }).map((r) => r.id)).toEqual(['r']);
    const rows = flattenRows(tree, { expanded: expandAll(tree) });
    expect(rows.map((r) => [r.id, r.depth, r.hasChildren, r.offset, r.width])).toEqual([
      ['r', 0, true, 0, 1],
      ['a', 1, true, 0, 0.5],
      ['b', 2, false, 0.25, 0.25],
      ['c', 1, false, 0.5, 0.5],
    ]);
    expect(
      flattenRows(tree, { expanded: new Set(['r']) }).map((r) => `${r.id}:${r.expanded}`),
    ).toEqual(['r:true', 'a:false', 'c:false']);
  });

  it('marks the critical path and guard outcomes', () => {
    expect([...criticalPath(tree)]).toEqual(['r', 'c']);
    const rows = flattenRows(tree, { expanded: expandAll(tree), critical: criticalPath(tree) });
    expect(rows.filter((r) => r.critical).map((r) => r.id)).toEqual(['r', 'c']);
    expect(
      guardOutcome({
        ...span('x', null, 0, 1),
        status: 'prevented',
        error: 'loop_detected: echo x3',
      }),
    ).toBe('loop');
    expect(
      guardOutcome({
        ...span('x', null, 0, 1),
        status: 'prevented',
        healthTag: 'circuit_breaker_open',
      }),
    ).toBe('breaker');
    expect(
      guardOutcome({ ...span('x', null, 0, 1), status: 'prevented', error: 'budget_exceeded: $5' }),
    ).toBe('budget');
    expect(guardOutcome({ ...span('x', null, 0, 1), status: 'prevented', error: 'refused' })).toBe(
      'prevented',
    );
    expect(guardOutcome({ ...span('x', null, 0, 1), status: 'error' })).toBeNull();
  });
});

describe('compressIdleGaps', () => {
  it('squeezes gaps longer than the threshold to a fixed width and maps times across them', () => {
    const axis = compressIdleGaps(
      [
        { start: 0, end: 10 },
        { start: 5, end: 20 },
        { start: 1020, end: 1030 },
        { start: 1032, end: 1040 },
      ],
      { thresholdMs: 100, gapWidthMs: 4 },
    );
    expect(axis.gaps).toEqual([{ start: 20, end: 1020, displayStart: 20, displayWidth: 4 }]);
    expect(axis.length).toBe(44);
    expect([0, 20, 520, 1020, 1040].map(axis.toDisplay)).toEqual([0, 20, 22, 24, 44]);
    expect(axis.toFraction(1040)).toBe(1);
  });

  it('is linear without gaps', () => {
    const axis = linearAxis(100, 300);
    expect(axis.toFraction(200)).toBe(0.5);
    expect(axis.gaps).toEqual([]);
  });
});

describe('search', () => {
  const tree = buildSpanTree([
    span('r', null, 0, 100, { spanType: 'agent', agentName: 'planner' }),
    span('a', 'r', 1, 2, { toolName: 'read_file', serverName: 'filesystem' }),
    span('b', 'r', 3, 4, { toolName: 'echo', error: 'File not found' }),
  ]);

  it('matches tool, server, agent and error text case-insensitively in display order', () => {
    expect(searchSpans(tree, 'FILE')).toEqual(['a', 'b']);
    expect(searchSpans(tree, 'plan')).toEqual(['r']);
    expect(searchSpans(tree, '  ')).toEqual([]);
    expect(ancestorIds(tree, 'b')).toEqual(['r']);
  });

  it('steps forward and back with wrap-around', () => {
    expect(stepMatch(3, 2, 1)).toBe(0);
    expect(stepMatch(3, 0, -1)).toBe(2);
    expect(stepMatch(3, -1, -1)).toBe(2);
    expect(stepMatch(0, 0, 1)).toBe(-1);
  });
});

describe('at 20,000 spans', () => {
  it('builds a deep chain and a wide fan without recursion and keeps every span', () => {
    const spans: TreeSpan[] = [span('root', null, 0, 40_000)];
    for (let i = 0; i < 10_000; i++)
      spans.push(span(`d${i}`, i ? `d${i - 1}` : 'root', i, 40_000 - i));
    for (let i = 0; i < 9_999; i++)
      spans.push(
        span(`w${i}`, 'root', 20_000 + i, 20_001 + i, { status: i % 100 ? 'success' : 'error' }),
      );
    spans.reverse();
    const tree = buildSpanTree(spans);
    expect(tree.order).toHaveLength(20_000);
    expect(tree.byId.get('d9999')!.depth).toBe(10_000);
    expect(tree.byId.get('root')!.problemsBelow).toBe(100);
    const rows = flattenRows(tree, { expanded: expandAll(tree), critical: criticalPath(tree) });
    expect(rows).toHaveLength(20_000);
    expect(rows.filter((r) => r.critical)).toHaveLength(10_001);
    expect(searchSpans(tree, 'w99')).toHaveLength(110);
    expect(flattenRows(tree, { expanded: new Set(['root']) })).toHaveLength(10_001);
  });

  it('hangs 10,000 orphans under the root among its own children, in start order', () => {
    const spans: TreeSpan[] = [span('root', null, 0, 40_000)];
    for (let i = 0; i < 10_000; i++) spans.push(span(`c${i}`, 'root', 2 * i, 2 * i + 1));
    for (let i = 0; i < 9_999; i++) spans.push(span(`o${i}`, `gone${i}`, 2 * i + 1, 2 * i + 2));
    const tree = buildSpanTree(spans);
    const kids = tree.roots[0]!.children;
    expect(kids).toHaveLength(19_999);
    expect(kids.every((n, i) => i === 0 || kids[i - 1]!.start <= n.start)).toBe(true);
    expect(kids.filter((n) => n.orphan)).toHaveLength(9_999);
  });
});
