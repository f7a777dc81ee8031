import Table from 'cli-table3';

/** Prints rows as a table for people, or as JSON with --json for scripts. */
export function printRows(rows: Record<string, unknown>[], columns: string[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const table = new Table({ head: columns, style: { head: [], border: [] } });
  for (const row of rows) table.push(columns.map((c) => format(row[c])));
  process.stdout.write(`${table.toString()}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function format(v: unknown): string {
  if (v === null || v === undefined) return '-';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
