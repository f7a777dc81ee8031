import type { Lineage, LineageEdge, LineageNode } from '../model/session.ts';
import type { LineageRow } from '../store/lineage-repo.ts';

/**
 * The agent/server graph (docs/api.md#shapes) from the hourly rollup rows of a window. An agent's
 * calls are its runs (agent spans), or the tool calls it made when it reported no agent span.
 */
export function buildLineage(rows: readonly LineageRow[]): Lineage {
  const nodes = new Map<string, LineageNode & { runs: number; runErrors: number }>();
  const node = (type: 'agent' | 'server', name: string) => {
    const id = `${type}:${name}`;
    let n = nodes.get(id);
    if (!n) nodes.set(id, (n = { id, type, name, calls: 0, errors: 0, runs: 0, runErrors: 0 }));
    return n;
  };
  const edges: LineageEdge[] = [];
  for (const r of rows) {
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
  const out = [...nodes.values()].map(({ runs, runErrors, ...n }) =>
    n.type === 'agent' && runs > 0 ? { ...n, calls: runs, errors: runErrors } : n,
  );
  return { nodes: out.sort((a, b) => a.id.localeCompare(b.id)), edges };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
