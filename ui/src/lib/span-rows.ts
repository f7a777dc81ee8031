/**
 * The span tree (span-tree.ts) as the rows a virtualised tree-and-waterfall draws: only the visible
 * ones for an expanded set, each with its depth, timing bar, critical-path mark and flags.
 */
import type { SpanNode, SpanTree, TreeSpan } from './span-tree.ts';
import { linearAxis, type TimeAxis } from './time-axis.ts';

/** What a guard did (docs/decisions.md: health tag, else the `error` prefix, else the status). */
export type GuardOutcome = 'loop' | 'budget' | 'breaker' | 'prevented';

export interface SpanRow<S extends TreeSpan = TreeSpan> {
  node: SpanNode<S>;
  id: string;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
  /** The timing bar as fractions of the axis, in [0, 1]. */
  offset: number;
  width: number;
  critical: boolean;
  /** status error or timeout. */
  failed: boolean;
  guard: GuardOutcome | null;
  /** Failed or prevented spans below this one (to flag a collapsed row). */
  problemsBelow: number;
}

const GUARD_TAGS: Record<string, GuardOutcome> = {
  loop_detected: 'loop',
  budget_exceeded: 'budget',
  circuit_breaker_open: 'breaker',
};

export function guardOutcome(span: TreeSpan): GuardOutcome | null {
  const byTag = span.healthTag ? GUARD_TAGS[span.healthTag] : undefined;
  if (byTag) return byTag;
  if (span.status !== 'prevented') return null;
  const prefix = span.error?.split(':', 1)[0] ?? '';
  return GUARD_TAGS[prefix] ?? 'prevented';
}

/** Every id with children: the `expanded` set for "expand all" (collapse all is an empty set). */
export function expandAll(tree: SpanTree<any>): Set<string> {
  return new Set(tree.order.filter((n) => n.children.length > 0).map((n) => n.id));
}

/**
 * The chain that decides when the session ends: from the root that ends last, each step down to
 * the child that ends last.
 */
export function criticalPath(tree: SpanTree<any>): Set<string> {
  const path = new Set<string>();
  let level: SpanNode<any>[] = tree.roots;
  while (level.length) {
    let last = level[0]!;
    for (const n of level)
      if (n.end > last.end || (n.end === last.end && n.start > last.start)) last = n;
    path.add(last.id);
    level = last.children;
  }
  return path;
}

export interface RowOptions {
  expanded: ReadonlySet<string>;
  /** Defaults to a linear axis over the session. */
  axis?: TimeAxis;
  critical?: ReadonlySet<string>;
}

/** O(visible rows), iterative. */
export function flattenRows<S extends TreeSpan>(tree: SpanTree<S>, opts: RowOptions): SpanRow<S>[] {
  const axis = opts.axis ?? linearAxis(tree.start, tree.end);
  const rows: SpanRow<S>[] = [];
  const stack = [...tree.roots].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    const hasChildren = node.children.length > 0;
    const expanded = hasChildren && opts.expanded.has(node.id);
    const offset = axis.toFraction(node.start);
    rows.push({
      node,
      id: node.id,
      depth: node.depth,
      hasChildren,
      expanded,
      offset,
      width: Math.max(0, axis.toFraction(node.end) - offset),
      critical: opts.critical?.has(node.id) ?? false,
      failed: node.span.status === 'error' || node.span.status === 'timeout',
      guard: guardOutcome(node.span),
      problemsBelow: node.problemsBelow,
    });
    if (expanded) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return rows;
}
