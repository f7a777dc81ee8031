import { useMemo } from 'preact/hooks';
import { visibleEscapes } from '../../lib/json-view.ts';
import { layoutLineage, type LineageInput } from '../../lib/lineage-layout.ts';
import type { TreeSpanData } from './queries.ts';

/** The session's agents, the servers they called and their handoffs, as lineage-layout's input. */
export function sessionLineage(spans: readonly TreeSpanData[]): LineageInput {
  const nodes = new Map<string, LineageInput['nodes'][number]>();
  const edges = new Map<string, LineageInput['edges'][number]>();
  const node = (id: string, name: string, type: string) => {
    let n = nodes.get(id);
    if (!n) nodes.set(id, (n = { id, name, type, calls: 0, errors: 0 }));
    return n;
  };
  const edge = (source: string, target: string, type: string, failed: boolean) => {
    const key = `${source}\u0000${target}\u0000${type}`;
    let e = edges.get(key);
    if (!e) edges.set(key, (e = { source, target, type, calls: 0, errors: 0 }));
    e.calls++;
    if (failed) e.errors++;
  };
  for (const s of spans) {
    const failed = s.status === 'error' || s.status === 'timeout';
    const agent = s.agentName ? node(`agent:${s.agentName}`, s.agentName, 'agent') : undefined;
    if (agent) {
      agent.calls++;
      if (failed) agent.errors++;
    }
    if (s.targetAgentName && agent) {
      node(`agent:${s.targetAgentName}`, s.targetAgentName, 'agent');
      edge(agent.id, `agent:${s.targetAgentName}`, 'handoff', failed);
    } else if (s.serverName && s.spanType !== 'agent') {
      const server = node(`server:${s.serverName}`, s.serverName, 'server');
      server.calls++;
      if (failed) server.errors++;
      if (agent) edge(agent.id, server.id, 'call', failed);
    }
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** A small SVG of the session's lineage (agents, handoffs, servers), edges by calls and errors. */
export function SessionLineage({ spans }: { spans: readonly TreeSpanData[] }) {
  const input = useMemo(() => sessionLineage(spans), [spans]);
  // A session's graph is small (its agents and servers); the /lineage page uses the worker.
  const g = useMemo(() => layoutLineage(input, { rankdir: 'LR', nodeHeight: 28 }), [input]);
  if (input.nodes.length === 0) return null;
  const desc = input.edges
    .map(
      (e) =>
        `${e.source.split(':')[1]} ${e.type === 'handoff' ? 'hands off to' : 'calls'} ${e.target.split(':')[1]} (${e.calls} calls, ${e.errors} errors)`,
    )
    .join('; ');
  return (
    <figure class="session-lineage">
      <svg
        viewBox={`0 0 ${Math.max(1, g.width)} ${Math.max(1, g.height)}`}
        width={Math.min(g.width, 900)}
        role="img"
        aria-label={visibleEscapes(`Lineage: ${desc || 'no calls'}`)}
      >
        {g.edges.map((e, i) => (
          <polyline
            key={i}
            class={`edge ${e.type}${e.errorRate > 0 ? ' has-errors' : ''}`}
            points={e.points.map((p) => `${p.x},${p.y}`).join(' ')}
            stroke-width={e.strokeWidth}
          />
        ))}
        {g.nodes.map((n) => (
          <g key={n.id} class={`node ${n.type}${n.errors ? ' has-errors' : ''}`}>
            <rect
              x={n.x - n.width / 2}
              y={n.y - n.height / 2}
              width={n.width}
              height={n.height}
              rx={n.type === 'agent' ? 14 : 4}
            />
            <text x={n.x} y={n.y} dominant-baseline="central" text-anchor="middle">
              {visibleEscapes(n.name)}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}
