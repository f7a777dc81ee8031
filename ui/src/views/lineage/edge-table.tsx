import type { LineageInput } from '../../lib/lineage-layout.ts';
import { nodeHref } from './graph.tsx';

const KIND: Record<string, string> = { calls: 'calls', handoff: 'hands off to' };

/** Every edge as a table row: the graph's text alternative, and a sortable-by-eye list. */
export function EdgeTable({
  lineage,
  byId,
  project,
}: {
  lineage: LineageInput;
  byId: Map<string, string>;
  project: string;
}) {
  const types = new Map(lineage.nodes.map((n) => [n.id, n.type]));
  const end = (id: string) => {
    const name = byId.get(id) ?? id;
    return <a href={nodeHref({ type: types.get(id) ?? 'agent', name }, project)}>{name}</a>;
  };
  const edges = [...lineage.edges].sort((a, b) => b.calls - a.calls);
  return (
    <table class="lineage-edges">
      <caption>Edges, busiest first</caption>
      <thead>
        <tr>
          <th scope="col">From</th>
          <th scope="col">Edge</th>
          <th scope="col">To</th>
          <th scope="col" class="num">
            Calls
          </th>
          <th scope="col" class="num">
            Errors
          </th>
          <th scope="col" class="num">
            Avg latency
          </th>
        </tr>
      </thead>
      <tbody>
        {edges.map((e, i) => (
          <tr key={i}>
            <td>{end(e.source)}</td>
            <td>{KIND[e.type] ?? e.type}</td>
            <td>{end(e.target)}</td>
            <td class="num">{e.calls}</td>
            <td class={e.errors ? 'num bad' : 'num'}>{e.errors}</td>
            <td class="num">{e.avgLatencyMs != null ? `${Math.round(e.avgLatencyMs)} ms` : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
