import type { LaidOutEdge, LaidOutNode, LineageLayout } from '../../lib/lineage-layout.ts';
import { href, navigate } from '../../router.ts';

/** Where a node leads: an agent's sessions, or a server's page. */
export function nodeHref(n: { type: string; name: string }, project: string): string {
  return n.type === 'server'
    ? href(`/servers/${encodeURIComponent(n.name)}`, { project })
    : href('/sessions', { agent: n.name, project });
}

export const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function nodeLabel(n: LaidOutNode): string {
  const what = n.type === 'server' ? 'Server' : n.type === 'agent' ? 'Agent' : 'Node';
  const goes = n.type === 'server' ? "open the server's page" : 'open its sessions';
  return `${what} ${n.name}: ${plural(n.calls, 'call')}, ${plural(n.errors, 'error')}; ${goes}`;
}

function edgePath(e: LaidOutEdge): string {
  return e.points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
}

/**
 * The SVG graph: boxes for agents and servers (focusable links), edges as paths whose width
 * follows the calls and whose colour turns red with the error rate; handoffs dashed.
 */
export function Graph({
  layout,
  byId,
  project,
}: {
  layout: LineageLayout;
  byId: Map<string, string>;
  project: string;
}) {
  const agents = layout.nodes.filter((n) => n.type === 'agent').length;
  const servers = layout.nodes.filter((n) => n.type === 'server').length;
  return (
    <div class="lineage-graph">
      <svg
        width={layout.width}
        height={layout.height}
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        role="group"
        aria-label={`Lineage graph: ${plural(agents, 'agent')}, ${plural(servers, 'server')}, ${plural(layout.edges.length, 'edge')}; the table below lists every edge`}
      >
        <defs>
          <marker
            id="lineage-arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerUnits="userSpaceOnUse"
            markerWidth="10"
            markerHeight="10"
            orient="auto-start-reverse"
          >
            <path d="M0,0 L10,5 L0,10 z" class="arrow" />
          </marker>
        </defs>
        {layout.edges.map((e, i) => (
          <path
            key={i}
            d={edgePath(e)}
            class={`edge edge-${e.type}${e.errors ? ' edge-errors' : ''}`}
            stroke-width={e.strokeWidth}
            stroke-opacity={e.errors ? 0.5 + 0.5 * e.errorRate : 0.7}
            marker-end="url(#lineage-arrow)"
          >
            <title>
              {`${byId.get(e.source) ?? e.source} → ${byId.get(e.target) ?? e.target}: ${plural(e.calls, 'call')}, ${plural(e.errors, 'error')}`}
            </title>
          </path>
        ))}
        {layout.nodes.map((n) => {
          const link = nodeHref(n, project);
          return (
            <a
              key={n.id}
              href={link}
              class={`node node-${n.type}${n.errors ? ' node-errors' : ''}`}
              aria-label={nodeLabel(n)}
              onClick={(e) => {
                // SVG links have no string href for the router's interceptor: navigate here.
                if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
                e.preventDefault();
                navigate(link);
              }}
            >
              <rect
                x={n.x - n.width / 2}
                y={n.y - n.height / 2}
                width={n.width}
                height={n.height}
                rx={n.type === 'agent' ? 18 : 4}
              />
              <text x={n.x} y={n.y} dominant-baseline="central" text-anchor="middle">
                {n.name}
              </text>
            </a>
          );
        })}
      </svg>
    </div>
  );
}
