import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { insertWithRollups } from './rollup-sql.ts';
import { COLUMN_LIST } from './span-rows.ts';

/**
 * The ingest statement (rollup-sql.ts) rendered once per form, with and without the group's
 * rollup rows, instead of once per commit: building its drizzle SQL tree and rendering it cost
 * every commit as much as the group's rollup rows did, which groups of a few dozen spans (batch 25)
 * paid per span many times over (docs/benchmarks.md, the redesign's ingest rows). Only the values
 * change between commits; the text and the order of its parameters do not.
 */
export interface IngestQuery {
  sql: string;
  params: unknown[];
}

export function ingestQuery(
  rowsJson: string,
  spanCount: number,
  rollups: string | null,
): IngestQuery {
  const form = rollups === null ? bare : withRollups;
  const values: Record<Slot, unknown> = { rows: rowsJson, count: spanCount, rollups };
  return { sql: form.text, params: form.slots.map((s) => values[s]) };
}

/**
 * The same as drizzle SQL for db.execute (both drivers): the rendered text between the values,
 * passed to the sql tag as its template strings (a tenth of sql.join's cost over raw chunks).
 */
export function ingestStatement(rowsJson: string, spanCount: number, rollups: string | null): SQL {
  const q = ingestQuery(rowsJson, spanCount, rollups);
  return sql(rollups === null ? bare.parts : withRollups.parts, ...q.params);
}

type Slot = 'rows' | 'count' | 'rollups';

interface Form {
  text: string;
  /** Which value each $n is, in order. */
  slots: Slot[];
  /** The text around the parameters (parts[i] precedes $(i+1)), as the sql tag takes it. */
  parts: TemplateStringsArray;
}

// Values no commit passes, to tell the parameters apart in the rendered text.
const ROWS = '\u0001rows';
const ROLLUPS = '\u0001rollups';
const COUNT = -0x5bd1e995;

function render(withRollupRows: boolean): Form {
  const q = new PgDialect().sqlToQuery(
    insertWithRollups(COLUMN_LIST, ROWS, COUNT, withRollupRows ? ROLLUPS : null),
  );
  const slots = q.params.map((p): Slot => {
    if (p === ROWS) return 'rows';
    if (p === COUNT) return 'count';
    if (p === ROLLUPS) return 'rollups';
    throw new Error(`the ingest statement has a parameter of its own: ${String(p)}`);
  });
  const split = q.sql.split(/\$\d+\b/);
  const parts = Object.freeze(Object.assign(split, { raw: [...split] }));
  const numbers = [...q.sql.matchAll(/\$(\d+)\b/g)].map((m) => Number(m[1]));
  if (numbers.length !== slots.length || numbers.some((n, i) => n !== i + 1))
    throw new Error('the ingest statement holds a $ that is not one of its parameters');
  return { text: q.sql, slots, parts };
}

const bare = render(false);
const withRollups = render(true);
