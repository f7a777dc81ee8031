/**
 * A sortable column's header cell: a button that sorts by the column (a second click reverses),
 * `aria-sort` on the sorted one and its arrow. The page keeps the sort (in its URL).
 */
export function SortHeader(props: {
  label: string;
  num?: boolean | undefined;
  /** This column is the one sorted by. */
  active: boolean;
  ascending: boolean;
  onSort: () => void;
}) {
  const { active, ascending } = props;
  return (
    <th
      scope="col"
      class={props.num ? 'num' : undefined}
      aria-sort={active ? (ascending ? 'ascending' : 'descending') : undefined}
    >
      <button type="button" class="sort" onClick={props.onSort}>
        {props.label}
        <span aria-hidden="true">{active ? (ascending ? ' ▲' : ' ▼') : ''}</span>
      </button>
    </th>
  );
}
