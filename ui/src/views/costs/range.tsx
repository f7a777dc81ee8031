import { field, readState } from '../../lib/url-state.ts';
import { location, setParams } from '../../router.ts';

export const WINDOWS = [
  ['24h', 'last 24 hours'],
  ['7d', 'last 7 days'],
  ['30d', 'last 30 days'],
] as const;
type Window = (typeof WINDOWS)[number][0];

/** The page's state in the URL: a named window (default 24h), or from/to; the project; sorts. */
export const STATE = {
  project: field.string(),
  window: field.oneOf<Window>(
    WINDOWS.map(([w]) => w),
    '24h',
  ),
  from: field.instant(),
  to: field.instant(),
  history: field.boolean(),
};
export type CostsState = ReturnType<typeof readCostsState>;

export function readCostsState() {
  return readState(location.value.query, STATE);
}

/** The query variables: from/to win over the window when both are in the URL. */
export function rangeVars(s: CostsState) {
  const custom = s.from !== null && s.to !== null;
  return {
    projectId: s.project || null,
    window: custom ? null : s.window,
    since: custom ? s.from : null,
    until: custom ? s.to : null,
  };
}

/** An ISO instant as a datetime-local value (the browser's local time, to the minute). */
function local(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The window picker: a named window, or a from/to range applied with its button. */
export function RangePicker({ s }: { s: CostsState }) {
  const custom = s.from !== null && s.to !== null;
  return (
    <form
      class="costs-range"
      aria-label="Time range"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const iso = (k: string) => {
          const v = String(f.get(k) ?? '');
          const d = new Date(v);
          return v && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
        };
        setParams({ from: iso('from'), to: iso('to'), window: null }, { push: true });
      }}
    >
      <label>
        Window
        <select
          value={custom ? 'custom' : s.window}
          onChange={(e) => {
            const w = e.currentTarget.value;
            if (w === 'custom') return;
            setParams({ window: w === '24h' ? null : w, from: null, to: null }, { push: true });
          }}
        >
          {WINDOWS.map(([w, label]) => (
            <option key={w} value={w}>
              {label}
            </option>
          ))}
          <option value="custom" disabled={!custom}>
            from / to
          </option>
        </select>
      </label>
      <label>
        From
        <input name="from" type="datetime-local" defaultValue={local(s.from)} key={`f${s.from}`} />
      </label>
      <label>
        To
        <input name="to" type="datetime-local" defaultValue={local(s.to)} key={`t${s.to}`} />
      </label>
      <button type="submit">Apply range</button>
    </form>
  );
}
