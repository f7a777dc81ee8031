/** The session page's controls: search with next/previous match, expand/collapse all, gaps. */
export function Toolbar(props: {
  search: string;
  matches: number;
  current: number;
  gaps: boolean;
  gapCount: number;
  onSearch(text: string): void;
  onStep(dir: 1 | -1): void;
  onExpandAll(): void;
  onCollapseAll(): void;
  onGaps(on: boolean): void;
}) {
  const { search, matches, current } = props;
  return (
    <div class="session-toolbar" role="toolbar" aria-label="Span tree">
      <label>
        <span class="sr-only">Search spans in this session</span>
        <input
          type="search"
          placeholder="Search spans (tool, server, agent, error)"
          value={search}
          onInput={(e) => props.onSearch((e.currentTarget as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              props.onStep(e.shiftKey ? -1 : 1);
            }
          }}
        />
      </label>
      <span class="muted" role="status" aria-live="polite">
        {search ? `${current >= 0 ? current + 1 : 0} of ${matches}` : ''}
      </span>
      <button type="button" onClick={() => props.onStep(-1)} disabled={!matches}>
        Previous match
      </button>
      <button type="button" onClick={() => props.onStep(1)} disabled={!matches}>
        Next match
      </button>
      <button type="button" onClick={props.onExpandAll}>
        Expand all
      </button>
      <button type="button" onClick={props.onCollapseAll}>
        Collapse all
      </button>
      <label class="check">
        <input
          type="checkbox"
          checked={props.gaps}
          onChange={(e) => props.onGaps((e.currentTarget as HTMLInputElement).checked)}
        />{' '}
        Compress idle gaps{props.gaps && props.gapCount ? ` (${props.gapCount})` : ''}
      </label>
    </div>
  );
}
