/**
 * A session's flat spans as a tree (schema.graphql `Span`, camelCase), built in O(n log n) without
 * recursion so a 20,000-span chain cannot overflow the stack. Spans whose parent is missing
 * (orphans) or whose parent chain loops hang under the first root, flagged `orphan`.
 */

/** The fields of a GraphQL `Span` (or `SpanEvent`) the tree reads; DateTime arrives as a string. */
export interface TreeSpan {
  spanId: string;
  parentSpanId?: string | null;
  startedAt: string | number | Date;
  endedAt?: string | number | Date | null;
  latencyMs?: number | null;
  status: string;
  spanType: string;
  toolName?: string | null;
  serverName?: string | null;
  agentName?: string | null;
  targetAgentName?: string | null;
  error?: string | null;
  healthTag?: string | null;
}

export interface SpanNode<S extends TreeSpan = TreeSpan> {
  span: S;
  id: string;
  parent: SpanNode<S> | null;
  children: SpanNode<S>[];
  depth: number;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  /** The parent was missing or looped back: attached under the first root instead. */
  orphan: boolean;
  /** Failed (error/timeout) or prevented spans strictly below this one. */
  problemsBelow: number;
}

export interface SpanTree<S extends TreeSpan = TreeSpan> {
  roots: SpanNode<S>[];
  byId: Map<string, SpanNode<S>>;
  /** Every node in depth-first display order. */
  order: SpanNode<S>[];
  start: number;
  end: number;
}

export function toMs(value: string | number | Date | null | undefined): number {
  if (value == null) return NaN;
  return typeof value === 'number' ? value : new Date(value).getTime();
}

const byStart = (a: SpanNode, b: SpanNode) => a.start - b.start || (a.id < b.id ? -1 : 1);

export function isProblem(span: TreeSpan): boolean {
  return span.status === 'error' || span.status === 'timeout' || span.status === 'prevented';
}

export function buildSpanTree<S extends TreeSpan>(spans: readonly S[]): SpanTree<S> {
  const byId = new Map<string, SpanNode<S>>();
  for (const span of spans) {
    if (byId.has(span.spanId)) continue; // a duplicate delivery: the first copy wins
    const start = toMs(span.startedAt);
    let end = toMs(span.endedAt);
    if (Number.isNaN(end)) end = start + (span.latencyMs ?? 0);
    const node: SpanNode<S> = {
      span,
      id: span.spanId,
      parent: null,
      children: [],
      depth: 0,
      start,
      end: Math.max(start, end),
      orphan: false,
      problemsBelow: 0,
    };
    byId.set(span.spanId, node);
  }
  const sorted = [...byId.values()].sort(byStart);
  const roots: SpanNode<S>[] = [];
  const pending: SpanNode<S>[] = [];
  for (const node of sorted) {
    const parentId = node.span.parentSpanId;
    const parent = parentId ? byId.get(parentId) : undefined;
    if (!parentId) roots.push(node);
    else if (!parent || parent === node) pending.push(node);
    else node.parent = parent;
  }
  // Children in start order: the nodes are visited sorted, so each list is appended in order.
  for (const node of sorted) node.parent?.children.push(node);
  const order: SpanNode<S>[] = [];
  const seen = new Set<SpanNode<S>>();
  const adopt = (node: SpanNode<S>) => {
    node.orphan = true;
    if (node.parent) node.parent.children.splice(node.parent.children.indexOf(node), 1);
    // roots[0] has no parent, so it is never below `node`: attaching there cannot make a loop.
    const host = roots[0];
    node.parent = host && host !== node ? host : null;
    if (node.parent)
      node.parent.children.push(node); // re-sorted once below: O(n log n)
    else roots.push(node);
  };
  for (const node of pending) adopt(node);
  roots[0]?.children.sort(byStart);
  walk(roots, seen, order);
  if (seen.size < byId.size) {
    // The rest sit on parent loops: cut each loop at the member the walk up meets twice.
    for (const node of sorted) {
      if (seen.has(node)) continue;
      const path = new Set<SpanNode<S>>();
      let cur = node;
      while (cur.parent && !path.has(cur) && !seen.has(cur.parent)) {
        path.add(cur);
        cur = cur.parent;
      }
      adopt(cur);
      walk([cur], seen, order);
    }
    roots[0]?.children.sort(byStart);
    order.length = 0;
    seen.clear();
    walk(roots, seen, order);
  }
  let start = Infinity;
  let end = -Infinity;
  for (const node of order) {
    start = Math.min(start, node.start);
    end = Math.max(end, node.end);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i]!;
    if (node.parent)
      node.parent.problemsBelow += node.problemsBelow + (isProblem(node.span) ? 1 : 0);
  }
  return order.length
    ? { roots, byId, order, start, end }
    : { roots, byId, order, start: 0, end: 0 };
}

/** Depth-first, children in start order, with an explicit stack; sets depth. */
function walk<S extends TreeSpan>(
  from: SpanNode<S>[],
  seen: Set<SpanNode<S>>,
  out: SpanNode<S>[],
): void {
  const stack = [...from].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    node.depth = node.parent ? node.parent.depth + 1 : 0;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
}
