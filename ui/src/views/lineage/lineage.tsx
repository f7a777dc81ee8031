import { useEffect, useMemo, useState } from 'preact/hooks';
import { useQuery } from '../../graphql/hooks.ts';
import type { LineageLayout } from '../../lib/lineage-layout.ts';
import { field, readState } from '../../lib/url-state.ts';
import { location, param, setParams } from '../../router.ts';
import { ErrorState, FirstSpan, Loading } from '../../shell/states.tsx';
import { EdgeTable } from './edge-table.tsx';
import { Graph } from './graph.tsx';
import { layOut } from './layout.ts';
import { LINEAGE, type LineageData } from './queries.ts';
import './lineage.css';

const WINDOWS = [
  ['1', 'last hour'],
  ['6', 'last 6 hours'],
  ['24', 'last 24 hours'],
  ['168', 'last 7 days'],
  ['720', 'last 30 days'],
] as const;
const SCHEMA = {
  hours: field.oneOf(
    WINDOWS.map((w) => w[0]),
    '24',
  ),
};

/**
 * The lineage page (`/lineage`, docs/ui.md#lineage): who called which server and handed off to
 * whom in a time window (`?hours=`), as a graph (layout.ts, off the main thread when large) and
 * as a table of edges, its text alternative.
 */
export function Lineage() {
  const project = param('project');
  const { hours } = readState(location.value.query, SCHEMA);
  const vars = useMemo(
    () => ({ projectId: project || null, hours: Number(hours) }),
    [project, hours],
  );
  const q = useQuery<LineageData>(LINEAGE, vars, { pollMs: 60_000 });
  const [layout, setLayout] = useState<LineageLayout | null>(null);
  const [layoutError, setLayoutError] = useState<string | null>(null);
  useEffect(() => {
    if (!q.data) return;
    let live = true;
    layOut(q.data.lineage)
      .then((l) => live && setLayout(l))
      .catch((e: unknown) => live && setLayoutError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [q.data]);
  const byId = useMemo(
    () => new Map((q.data?.lineage.nodes ?? []).map((n) => [n.id, n.name])),
    [q.data],
  );

  const picker = (
    <form class="lineage-bar" onSubmit={(e) => e.preventDefault()}>
      <label>
        Window{' '}
        <select value={hours} onChange={(e) => setParams({ hours: e.currentTarget.value })}>
          {WINDOWS.map(([h, label]) => (
            <option key={h} value={h}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <span class="muted">Width: calls. Red: errors. Dashed: handoffs.</span>
    </form>
  );
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="the lineage" />;
  const lineage = q.data.lineage;
  if (lineage.nodes.length === 0)
    return (
      <>
        {picker}
        <FirstSpan>
          <p>No agent called a server in this window{project ? ` in project ${project}` : ''}.</p>
        </FirstSpan>
      </>
    );
  return (
    <>
      {picker}
      {layoutError ? (
        <p class="bad" role="alert">
          Could not lay the graph out: {layoutError}. The table below has every edge.
        </p>
      ) : layout ? (
        <Graph layout={layout} byId={byId} project={project} />
      ) : (
        <Loading what="the graph layout" />
      )}
      <EdgeTable lineage={lineage} byId={byId} project={project} />
    </>
  );
}
