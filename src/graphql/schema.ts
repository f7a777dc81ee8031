import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import './spans.ts';
import './settings.ts';
import './projects.ts';
import './health.ts';
import './server-tools.ts';
import './scorecard.ts';
import './security.ts';
import './anomalies.ts';
import './sessions.ts';
import './catalog.ts';
import './live.ts';
import './costs.ts';
import './slos.ts';
import './alerts.ts';
import './prevention.ts';
import './admin.ts';
import './ingest.ts';
import './ui-auth.ts';
import './overview.ts';
import './agent-stats.ts';

/** The schema; domain files register their types on import. */
export const schema: GraphQLSchema = builder.toSchema();

/** schema.graphql as committed: sorted so diffs show real changes only. */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
