import { useEffect, useRef, useState } from 'preact/hooks';
import { visibleEscapes } from '../../lib/json-view.ts';
import type { SpanRow } from '../../lib/span-rows.ts';
import type { TimeAxis } from '../../lib/time-axis.ts';
import { AxisHeader, duration } from './axis-header.tsx';
import type { TreeSpanData } from './queries.ts';

/** Fixed row height (px): the windowing below is plain arithmetic on it. */
export const ROW_HEIGHT = 26;
const OVERSCAN = 12;
const VIEW_HEIGHT = 560;

export interface WaterfallProps {
  rows: SpanRow<TreeSpanData>[];
  axis: TimeAxis;
  selected: string;
  matches: ReadonlySet<string>;
  onSelect(id: string | null): void;
  onToggle(id: string, open: boolean): void;
}

export const rowDomId = (id: string) => `span-row-${encodeURIComponent(id).replace(/%/g, '_')}`;

function label(span: TreeSpanData): string {
  const name =
    span.spanType === 'handoff' && span.targetAgentName
      ? `→ ${span.targetAgentName}`
      : span.toolName;
  return visibleEscapes(`${name}`);
}

/**
 * One tree-and-waterfall: a `role="tree"` of `treeitem` rows (indent, name, flags) each with its
 * timing bar on the shared axis. Only the rows in view (plus a margin) are in the DOM, so 2,000+
 * spans scroll smoothly; the tree keeps focus and points at the selected row through
 * aria-activedescendant. Keys: j/k or ↓/↑ move, → expands or steps in, ← collapses or steps out,
 * Enter toggles, Home/End, Esc clears the selection.
 */
export function Waterfall({ rows, axis, selected, matches, onSelect, onToggle }: WaterfallProps) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const index = selected ? rows.findIndex((r) => r.id === selected) : -1;

  // Keep the selected row in view (and so in the DOM for aria-activedescendant).
  useEffect(() => {
    const el = box.current;
    if (!el || index < 0) return;
    const y = index * ROW_HEIGHT;
    if (y < el.scrollTop) el.scrollTop = y;
    else if (y + ROW_HEIGHT > el.scrollTop + el.clientHeight)
      el.scrollTop = y + ROW_HEIGHT - el.clientHeight;
  }, [index, rows]);

  const move = (i: number) => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, i))];
    if (row) onSelect(row.id);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const row = index >= 0 ? rows[index] : undefined;
    const handled = (() => {
      switch (e.key) {
        case 'j':
        case 'ArrowDown':
          return (move(index + 1), true);
        case 'k':
        case 'ArrowUp':
          return (move(index < 0 ? 0 : index - 1), true);
        case 'Home':
          return (move(0), true);
        case 'End':
          return (move(rows.length - 1), true);
        case 'ArrowRight':
          if (!row) return (move(0), true);
          if (row.hasChildren && !row.expanded) onToggle(row.id, true);
          else if (row.expanded) move(index + 1);
          return true;
        case 'ArrowLeft':
          if (!row) return false;
          if (row.expanded) onToggle(row.id, false);
          else if (row.node.parent) onSelect(row.node.parent.id);
          return true;
        case 'Enter':
          if (row?.hasChildren) onToggle(row.id, !row.expanded);
          return !!row;
        case 'Escape':
          if (!row) return false;
          onSelect(null);
          return true;
        default:
          return false;
      }
    })();
    if (handled) e.preventDefault();
  };

  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((top + VIEW_HEIGHT) / ROW_HEIGHT) + OVERSCAN);
  const visible = rows.slice(first, last);
  return (
    <div class="wf-wrap">
      <AxisHeader axis={axis} />
      <div
        ref={box}
        class="wf"
        role="tree"
        aria-label="Spans of the session"
        tabIndex={0}
        aria-activedescendant={index >= 0 ? rowDomId(selected) : undefined}
        style={{ height: `${Math.min(VIEW_HEIGHT, Math.max(rows.length, 1) * ROW_HEIGHT + 2)}px` }}
        onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div class="wf-space" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
          {axis.gaps.map((g) => (
            <div
              key={g.start}
              class="wf-gap"
              aria-hidden="true"
              style={{ left: `calc(45% + 55% * ${g.displayStart / (axis.length || 1)})` }}
            />
          ))}
          {visible.map((row, i) => (
            <Row
              key={row.id}
              row={row}
              at={first + i}
              selected={row.id === selected}
              match={matches.has(row.id)}
              onSelect={onSelect}
              onToggle={onToggle}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

function Row({
  row,
  at,
  selected,
  match,
  onSelect,
  onToggle,
}: {
  row: SpanRow<TreeSpanData>;
  at: number;
  selected: boolean;
  match: boolean;
  onSelect(id: string): void;
  onToggle(id: string, open: boolean): void;
}) {
  const s = row.node.span;
  const siblings = row.node.parent?.children;
  const cls = [
    'wf-row',
    selected && 'selected',
    match && 'match',
    row.critical && 'critical',
    row.failed && 'failed',
    row.guard && 'guarded',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <div
      id={rowDomId(row.id)}
      class={cls}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-expanded={row.hasChildren ? row.expanded : undefined}
      aria-selected={selected}
      aria-setsize={siblings ? siblings.length : undefined}
      aria-posinset={siblings ? siblings.indexOf(row.node) + 1 : undefined}
      style={{ top: `${at * ROW_HEIGHT}px` }}
      onClick={() => onSelect(row.id)}
      onDblClick={() => row.hasChildren && onToggle(row.id, !row.expanded)}
    >
      <div class="wf-name" style={{ paddingLeft: `${Math.min(row.depth, 30) * 14 + 4}px` }}>
        <span
          class="wf-twisty"
          aria-hidden="true"
          onClick={(e) => {
            e.stopPropagation();
            if (row.hasChildren) onToggle(row.id, !row.expanded);
          }}
        >
          {row.hasChildren ? (row.expanded ? '▾' : '▸') : ''}
        </span>
        <span class="wf-type">{s.spanType}</span> <span class="wf-label">{label(s)}</span>
        {row.guard && <span class="badge guard">{row.guard}</span>}
        {row.failed && <span class="badge bad">{s.status}</span>}
        {!row.expanded && row.problemsBelow > 0 && (
          <span class="badge warn" title="Failed or prevented spans below">
            {row.problemsBelow} below
          </span>
        )}
        {row.critical && <span class="sr-only"> (critical path)</span>}
        <span class="wf-ms">{duration(s.latencyMs)}</span>
      </div>
      <div class="wf-lane" aria-hidden="true">
        <div
          class="wf-bar"
          style={{ left: `${row.offset * 100}%`, width: `max(2px, ${row.width * 100}%)` }}
        />
      </div>
    </div>
  );
}
