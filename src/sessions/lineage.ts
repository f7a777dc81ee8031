import type { Lineage, LineageEdge, LineageNode } from '../model/session.ts';
import type { LineageRow } from '../store/lineage-repo.ts';

/**
 * The agent/server graph (docs/api.md#shapes) from the hourly rollup rows of a window. An agent's
 * calls are its runs (agent spans), or the tool calls it made when it reported no agent span.
 */
export function buildLineage(rows: readonly LineageRow[]): Lineage {
  type Node = LineageNode & { runs: number; runErrors: number };
  const nodes = new Map<string, Node>();
  // Found by name within its type, so a row makes no id string for a node already seen.
  const byType = { agent: new Map<string, Node>(), server: new Map<string, Node>() };
  const node = (type: 'agent' | 'server', name: string) => {
    let n = byType[type].get(name);
    if (!n) {
      const id = `${type}:${name}`;
      n = nodes.get(id);
      if (!n) nodes.set(id, (n = { id, type, name, calls: 0, errors: 0, runs: 0, runErrors: 0 }));
      byType[type].set(name, n);
    }
    return n;
  };
  const edges: LineageEdge[] = [];
  // Indexed: the driver's row list is an Array subclass, which for…of walks with an iterator
  // result object per row.
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as LineageRow;
    if (r.edge_type === 'run') {
      const a = node('agent', r.source);
      a.runs += r.calls;
      a.runErrors += r.errors;
      continue;
    }
    const source = node('agent', r.source);
    const target = r.edge_type === 'calls' ? node('server', r.target) : node('agent', r.target);
    if (r.edge_type === 'calls') {
      target.calls += r.calls;
      target.errors += r.errors;
      source.calls += r.calls;
      source.errors += r.errors;
    }
    edges.push({
      source: source.id,
      target: target.id,
      type: r.edge_type,
      calls: r.calls,
      errors: r.errors,
      avgLatencyMs: r.calls ? round(r.latency_sum_ms / r.calls) : 0,
    });
  }
  // Literals rather than a rest and a spread per node (their copies cost more than the rest of it).
  const out: LineageNode[] = [];
  for (const n of nodes.values()) {
    const runs = n.type === 'agent' && n.runs > 0;
    out.push({
      id: n.id,
      type: n.type,
      name: n.name,
      calls: runs ? n.runs : n.calls,
      errors: runs ? n.runErrors : n.errors,
    });
  }
  return { nodes: out.sort((a, b) => a.id.localeCompare(b.id)), edges };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
