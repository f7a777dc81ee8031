import { sql } from 'drizzle-orm';
import { execute, timestamptz, type Db } from './db.ts';

export interface LineageRow {
  edge_type: 'calls' | 'handoff' | 'run';
  source: string;
  target: string;
  calls: number;
  errors: number;
  latency_sum_ms: number;
}

/** Edges summed over the hourly rollup between two instants (hour resolution). */
export async function sumLineage(
  db: Db,
  projectId: string | null,
  since: Date,
  until: Date,
): Promise<LineageRow[]> {
  const project = projectId === null ? sql`true` : sql`project_id = ${projectId}`;
  const { rows } = await execute<LineageRow>(
    db,
    sql`select edge_type, source, target, sum(calls)::int as calls, sum(errors)::int as errors, sum(latency_sum_ms)::float8 as latency_sum_ms
        from lineage_hourly
        where ${project} and hour >= date_trunc('hour', ${timestamptz(since)} at time zone 'UTC') at time zone 'UTC'
          and hour <= ${timestamptz(until)}
        group by edge_type, source, target
        order by edge_type, source, target`,
  );
  return rows.map((r) => ({
    ...r,
    calls: Number(r.calls),
    errors: Number(r.errors),
    latency_sum_ms: Number(r.latency_sum_ms),
  }));
}
