/**
 * Search inside one session: the spans whose name, tool, server, agent or error text contains the
 * query (case-insensitive), in display order, and stepping through them with wrap-around.
 */
import type { SpanTree, TreeSpan } from './span-tree.ts';

const FIELDS = [
  'toolName',
  'serverName',
  'agentName',
  'targetAgentName',
  'error',
  'spanType',
  'spanId',
] as const;

/** Ids of matching spans in depth-first display order; an empty query matches nothing. */
export function searchSpans(tree: SpanTree<any>, query: string): string[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const out: string[] = [];
  for (const node of tree.order) {
    const span: TreeSpan = node.span;
    if (FIELDS.some((f) => span[f]?.toLowerCase().includes(q))) out.push(node.id);
  }
  return out;
}

/** The next (+1) or previous (-1) match index, wrapping; -1 when there are no matches. */
export function stepMatch(count: number, current: number, dir: 1 | -1): number {
  if (count <= 0) return -1;
  if (current < 0 || current >= count) return dir === 1 ? 0 : count - 1;
  return (current + dir + count) % count;
}

/** The ancestors of a span, root first: add them to the expanded set to reveal a match. */
export function ancestorIds(tree: SpanTree<any>, id: string): string[] {
  const out: string[] = [];
  for (let n = tree.byId.get(id)?.parent; n; n = n.parent) out.push(n.id);
  return out.reverse();
}
