import { useMemo, useRef } from 'preact/hooks';
import { useQuery, useSubscription } from '../../graphql/hooks.ts';
import { visibleEscapes } from '../../lib/json-view.ts';
import { criticalPath, expandAll, flattenRows } from '../../lib/span-rows.ts';
import { searchSpans, stepMatch } from '../../lib/span-search.ts';
import { buildSpanTree } from '../../lib/span-tree.ts';
import { compressIdleGaps, linearAxis } from '../../lib/time-axis.ts';
import type { PageProps } from '../../pages.ts';
import { param, setParams } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { SessionLineage } from './lineage.tsx';
import { SESSION, SESSION_SPAN_NEW, type SessionData } from './queries.ts';
import { SpanPanel } from './span-panel.tsx';
import { Toolbar } from './toolbar.tsx';
import { Waterfall } from './waterfall.tsx';
import './session.css';

/** Below this, a new span of the session refetches the tree at most this often (ms). */
const LIVE_REFETCH_MS = 1000;

/**
 * One session (`/sessions/:id`): its rollup, a lineage graph, the tree-and-waterfall and the
 * selected span's panel. URL state: `span` (selection), `q` (search), `gaps=1` (idle gaps
 * compressed), `fold=collapsed` (start from all collapsed) and `toggle` (ids flipped from there).
 */
export function SessionPage({ params }: PageProps) {
  const sessionId = params.id ?? '';
  const project = param('project');
  const projectId = project || null;
  const q = useQuery<SessionData>(SESSION, { projectId, sessionId });

  // Live: the session's new spans (spanNew filtered to it) refetch the tree, throttled.
  const refetch = useRef(q.refetch);
  refetch.current = q.refetch;
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useSubscription(SESSION_SPAN_NEW, { projectId, sessionId }, () => {
    pending.current ??= setTimeout(() => {
      pending.current = undefined;
      refetch.current();
    }, LIVE_REFETCH_MS);
  });

  const spans = useMemo(() => q.data?.session.tree.map((t) => t.span) ?? [], [q.data]);
  const tree = useMemo(() => buildSpanTree(spans), [spans]);
  const critical = useMemo(() => criticalPath(tree), [tree]);
  const gaps = param('gaps') === '1';
  const axis = useMemo(() => {
    if (!gaps) return linearAxis(tree.start, tree.end);
    // A gap longer than max(1 s, 5 % of the session) shrinks to 4 % of the busy time.
    const thresholdMs = Math.max(1000, (tree.end - tree.start) * 0.05);
    const busy = compressIdleGaps(tree.order, { thresholdMs, gapWidthMs: 0 }).length;
    return compressIdleGaps(tree.order, { thresholdMs, gapWidthMs: busy * 0.04 || 1 });
  }, [tree, gaps]);

  const selected = param('span');
  const folded = param('fold') === 'collapsed';
  const toggleParam = param('toggle');
  const expanded = useMemo(() => {
    const set = folded ? new Set<string>() : expandAll(tree);
    for (const id of toggleParam ? toggleParam.split(',') : [])
      if (set.has(id)) set.delete(id);
      else set.add(id);
    // The selection is always visible: its ancestors stay open.
    for (let n = tree.byId.get(selected)?.parent; n; n = n.parent) set.add(n.id);
    return set;
  }, [tree, folded, toggleParam, selected]);
  const rows = useMemo(
    () => flattenRows(tree, { expanded, axis, critical }),
    [tree, expanded, axis, critical],
  );

  const search = param('q');
  const matches = useMemo(() => searchSpans(tree, search), [tree, search]);
  const matchSet = useMemo(() => new Set(matches), [matches]);

  if (q.error && !q.data) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="the session" />;
  const { session: s, truncated } = q.data.session;

  const select = (id: string | null) => setParams({ span: id });
  const toggle = (id: string, open: boolean) => {
    if (expanded.has(id) === open) return;
    const list = new Set(toggleParam ? toggleParam.split(',') : []);
    if (list.has(id)) list.delete(id);
    else list.add(id);
    setParams({ toggle: [...list].join(',') });
  };
  const step = (dir: 1 | -1) => {
    const next = stepMatch(matches.length, matches.indexOf(selected), dir);
    if (next >= 0) select(matches[next] ?? null);
  };
  const current = matches.indexOf(selected);
  const recent = Date.now() - new Date(s.lastCallAt).getTime() < 5 * 60_000;

  return (
    <div class="session-page">
      <dl class="session-summary">
        <div>
          <dt>Session</dt>
          <dd class="mono">{visibleEscapes(s.sessionId)}</dd>
        </div>
        <div>
          <dt>Agent</dt>
          <dd>{visibleEscapes(s.agentName ?? '—')}</dd>
        </div>
        <div>
          <dt>Health</dt>
          <dd class={`health ${s.healthTag}`}>{s.healthTag}</dd>
        </div>
        <div>
          <dt>Spans</dt>
          <dd>{s.spanCount.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd class={s.failedCalls ? 'bad-text' : undefined}>{s.failedCalls}</dd>
        </div>
        <div>
          <dt>Prevented</dt>
          <dd class={s.preventedCalls ? 'warn-text' : undefined}>{s.preventedCalls}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{(s.durationMs / 1000).toFixed(1)} s</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>${s.estCostUsd.toFixed(4)}</dd>
        </div>
        <div>
          <dt>Tokens in / out</dt>
          <dd>
            {s.inputTokens.toLocaleString()} / {s.outputTokens.toLocaleString()}
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <Time value={s.firstCallAt} />
          </dd>
        </div>
        {recent && (
          <div>
            <dt>Live</dt>
            <dd class="live-dot">updating</dd>
          </div>
        )}
      </dl>
      {truncated && (
        <p role="status" class="warn-text">
          This session has more spans than one view shows; the tree holds the first{' '}
          {spans.length.toLocaleString()}.
        </p>
      )}
      <SessionLineage spans={spans} />
      <Toolbar
        search={search}
        matches={matches.length}
        current={current}
        gaps={gaps}
        gapCount={axis.gaps.length}
        onSearch={(text) => setParams({ q: text })}
        onStep={step}
        onExpandAll={() => setParams({ fold: null, toggle: null })}
        onCollapseAll={() => setParams({ fold: 'collapsed', toggle: null })}
        onGaps={(on) => setParams({ gaps: on ? '1' : null })}
      />
      <div class={`session-body${selected ? ' with-panel' : ''}`}>
        <Waterfall
          rows={rows}
          axis={axis}
          selected={selected}
          matches={matchSet}
          onSelect={select}
          onToggle={toggle}
        />
        {selected && (
          <SpanPanel projectId={projectId} spanId={selected} onClose={() => select(null)} />
        )}
      </div>
    </div>
  );
}
