import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { Db } from '../store/db.ts';
import { sumLineage } from '../store/lineage-repo.ts';
import { parseTime, windowStart } from '../traces/query-params.ts';

export interface LineageNode {
  id: string;
  type: 'agent' | 'server';
  name: string;
  calls: number;
  errors: number;
}
export interface LineageEdge {
  source: string;
  target: string;
  type: 'calls' | 'handoff';
  calls: number;
  errors: number;
  avg_latency_ms: number;
}
export interface Lineage {
  nodes: LineageNode[];
  edges: LineageEdge[];
}

/**
 * The agent/server graph (docs/api.md#shapes) from the hourly rollup, default the last 24 h. An agent's
 * calls are its runs (agent spans), or the tool calls it made when it reported no agent span.
 */
export interface LineageQuery {
  projectId: string | null;
  since?: string | undefined;
  until?: string | undefined;
  /** Look back this many hours (1-720) when `since` is not given; default 24. */
  hours?: string | number | undefined;
}

export async function getLineage(db: Db, q: LineageQuery): Promise<Lineage> {
  const issues: ValidationIssue[] = [];
  const until = parseTime('until', q.until, issues) ?? new Date();
  const since = windowStart(q, until, 24, issues);
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });

  const nodes = new Map<string, LineageNode & { runs: number; runErrors: number }>();
  const node = (type: 'agent' | 'server', name: string) => {
    const id = `${type}:${name}`;
    let n = nodes.get(id);
    if (!n) nodes.set(id, (n = { id, type, name, calls: 0, errors: 0, runs: 0, runErrors: 0 }));
    return n;
  };
  const edges: LineageEdge[] = [];
  for (const r of await sumLineage(db, q.projectId, since, until)) {
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
      avg_latency_ms: r.calls ? round(r.latency_sum_ms / r.calls) : 0,
    });
  }
  const out = [...nodes.values()].map(({ runs, runErrors, ...n }) =>
    n.type === 'agent' && runs > 0 ? { ...n, calls: runs, errors: runErrors } : n,
  );
  return { nodes: out.sort((a, b) => a.id.localeCompare(b.id)), edges };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
