import { SortHeader } from '../../shell/sort-header.tsx';
import type { ComponentChildren } from 'preact';
import { param, setParams } from '../../router.ts';

export interface Column<T> {
  key: string;
  label: string;
  /** What the column sorts by. */
  value: (row: T) => number | string;
  /** The cell's content; the value as text by default. */
  render?: (row: T) => ComponentChildren;
  num?: boolean;
}

export const usd = (v: number) => `$${v.toFixed(v !== 0 && Math.abs(v) < 0.01 ? 6 : 4)}`;

/**
 * A sortable table whose last column is each row's share of `total` as a bar (drawn with CSS,
 * hidden from screen readers, which read the percentage). The sort is in the URL as `<id>` (the
 * column key) and `<id>Dir=asc`; the API's order (cost, highest first) is the default.
 */
export function ShareTable<T>(props: {
  id: string;
  caption: string;
  rows: readonly T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  share: (row: T) => number;
  total: number;
  empty: string;
}) {
  const { id, columns, total } = props;
  const sort = param(id);
  const asc = param(`${id}Dir`) === 'asc';
  const col = columns.find((c) => c.key === sort);
  const rows = col
    ? [...props.rows].sort((a, b) => {
        const x = col.value(a);
        const y = col.value(b);
        const d =
          typeof x === 'number' && typeof y === 'number'
            ? x - y
            : String(x).localeCompare(String(y));
        return asc ? d : -d;
      })
    : props.rows;
  const sortBy = (key: string) =>
    setParams({ [id]: key, [`${id}Dir`]: sort === key && !asc ? 'asc' : null });
  if (props.rows.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <div class="costs-table">
      <table class="data" data-testid={`${id}-table`}>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <SortHeader
                key={c.key}
                label={c.label}
                num={c.num}
                active={sort === c.key}
                ascending={asc}
                onSort={() => sortBy(c.key)}
              />
            ))}
            <th scope="col" class="num">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const pct = total > 0 ? (props.share(r) / total) * 100 : 0;
            return (
              <tr key={props.rowKey(r)}>
                {columns.map((c, i) =>
                  i === 0 ? (
                    <th key={c.key} scope="row">
                      {c.render ? c.render(r) : String(c.value(r))}
                    </th>
                  ) : (
                    <td key={c.key} class={c.num ? 'num' : undefined}>
                      {c.render ? c.render(r) : String(c.value(r))}
                    </td>
                  ),
                )}
                <td class="num share">
                  <span class="bar" aria-hidden="true">
                    <span style={{ width: `${Math.min(100, Math.max(0, pct))}%` }} />
                  </span>
                  {pct.toFixed(1)}%
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
