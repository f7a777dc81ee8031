/**
 * The lineage graph (GraphQL `lineage`: agents, servers, handoffs) laid out with @dagrejs/dagre,
 * edges weighted by calls (stroke width, square-root scale so one busy edge does not flatten the
 * rest) and errors (error rate). Pure and serialisable in and out, so lineage-layout.worker.ts can
 * run it off the main thread for large graphs (see shouldUseWorker).
 */
import { Graph, layout } from '@dagrejs/dagre';

/** GraphQL `Lineage` as queried. */
export interface LineageInput {
  nodes: { id: string; name: string; type: string; calls: number; errors: number }[];
  edges: {
    source: string;
    target: string;
    type: string;
    calls: number;
    errors: number;
    avgLatencyMs?: number;
  }[];
}

export interface LayoutOptions {
  rankdir?: 'LR' | 'TB';
  /** Minimum node box; a long name widens it by charWidth a character. */
  nodeWidth?: number;
  nodeHeight?: number;
  charWidth?: number;
  minStroke?: number;
  maxStroke?: number;
}

export type LaidOutNode = LineageInput['nodes'][number] & {
  /** Centre of the box. */
  x: number;
  y: number;
  width: number;
  height: number;
};

export type LaidOutEdge = LineageInput['edges'][number] & {
  points: { x: number; y: number }[];
  strokeWidth: number;
  /** errors / calls, 0 when there were no calls. */
  errorRate: number;
};

export interface LineageLayout {
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  width: number;
  height: number;
}

/** Above this many nodes + edges, lay out in the worker. */
export const WORKER_THRESHOLD = 150;

export function shouldUseWorker(input: LineageInput): boolean {
  return input.nodes.length + input.edges.length > WORKER_THRESHOLD;
}

export function strokeWidth(calls: number, maxCalls: number, min = 1, max = 8): number {
  if (maxCalls <= 0 || calls <= 0) return min;
  return min + (max - min) * Math.sqrt(Math.min(calls, maxCalls) / maxCalls);
}

export function layoutLineage(input: LineageInput, opts: LayoutOptions = {}): LineageLayout {
  const { rankdir = 'LR', nodeWidth = 140, nodeHeight = 36, charWidth = 7 } = opts;
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir, nodesep: 24, ranksep: 64, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const nodes = new Map(input.nodes.map((n) => [n.id, n]));
  // An edge to a node the query did not return still gets drawn, to a plain box.
  for (const e of input.edges) {
    for (const id of [e.source, e.target]) {
      if (!nodes.has(id)) nodes.set(id, { id, name: id, type: 'unknown', calls: 0, errors: 0 });
    }
  }
  for (const n of nodes.values()) {
    g.setNode(n.id, {
      width: Math.max(nodeWidth, n.name.length * charWidth + 24),
      height: nodeHeight,
    });
  }
  input.edges.forEach((e, i) =>
    g.setEdge(e.source, e.target, { weight: Math.max(1, e.calls) }, String(i)),
  );
  layout(g);
  const maxCalls = Math.max(0, ...input.edges.map((e) => e.calls));
  const graph = g.graph() as { width?: number; height?: number };
  return {
    nodes: [...nodes.values()].map((n) => {
      const box = g.node(n.id) as { x: number; y: number; width: number; height: number };
      return { ...n, x: box.x, y: box.y, width: box.width, height: box.height };
    }),
    edges: input.edges.map((e, i) => ({
      ...e,
      points: (
        (g.edge(e.source, e.target, String(i)) as { points?: { x: number; y: number }[] }).points ??
        []
      ).map((p) => ({ x: p.x, y: p.y })),
      strokeWidth: strokeWidth(e.calls, maxCalls, opts.minStroke, opts.maxStroke),
      errorRate: e.calls > 0 ? Math.min(1, e.errors / e.calls) : 0,
    })),
    width: graph.width ?? 0,
    height: graph.height ?? 0,
  };
}
