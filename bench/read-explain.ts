/**
 * EXPLAIN (ANALYZE, BUFFERS) of the exact SQL the read endpoints run: the services are called on a
 * drizzle instance whose logger records each statement and its parameters, and each statement is
 * then explained (three times; the last, warm run is reported), on PostgreSQL or on the server's own
 * PGlite (through the server's client). Used by bench/read-path.ts --explain.
 *
 * Standalone, against a loaded database (e.g. one left by `bench/read-path.ts --keep`):
 *   node --import tsx bench/read-explain.ts postgres://postgres@127.0.0.1:PORT/spyglass_read_bench
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { LOCAL_ADMIN as ADMIN } from '../src/auth/principal.ts';
import { SessionsService } from '../src/sessions/sessions-service.ts';
import type { Db } from '../src/store/db.ts';
import { readTimesExactly } from '../src/store/pg-time.ts';
import * as schema from '../src/store/schema.ts';
import { SpansService } from '../src/traces/spans-service.ts';

export interface ExplainResult {
  name: string;
  sql: string;
  params: unknown[];
  plan: string;
  executionMs: number;
  planningMs: number;
}

export interface ExplainTargets {
  treeSession: { projectId: string; id: string };
  trace: { projectId: string; id: string };
  agent: string;
  /** A sessions-list cursor (page 2), if any. */
  cursor?: string | undefined;
}

/**
 * PostgreSQL by URL, or the postgres.js client a running server holds (PGlite runs on the server's
 * thread and admits no second opener: its one connection is shared, statements wait their turn).
 */
export type ExplainOn = { url: string } | { client: postgres.Sql };

interface Explainer {
  db: Db;
  explain(sql: string, params: unknown[]): Promise<string>;
  close(): Promise<void>;
}

function explainer(on: ExplainOn, logQuery: (sql: string, params: unknown[]) => void): Explainer {
  const client =
    'client' in on
      ? on.client
      : postgres(on.url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  const db = drizzle(client, { schema, logger: { logQuery } }) as unknown as Db;
  // drizzle() resets the client's timestamp parsers: the store's (pg-time.ts) again, as the
  // services' raw reads expect them (and as the server's own reads do on a shared client).
  readTimesExactly(client);
  return {
    db,
    explain: async (q, params) =>
      (
        await client.unsafe(
          `explain (analyze, buffers) ${q}`,
          params as postgres.ParameterOrJSON<never>[],
        )
      )
        .map((r) => String((r as Record<string, unknown>)['QUERY PLAN']))
        .join('\n'),
    close: async () => {
      if (!('client' in on)) await client.end({ timeout: 5 });
    },
  };
}

export async function explainReadQueries(
  on: ExplainOn,
  t: ExplainTargets,
): Promise<ExplainResult[]> {
  let captured: { sql: string; params: unknown[] }[] = [];
  const ex = explainer(on, (sql, params) => void captured.push({ sql, params }));
  const db = ex.db;
  const sessions = new SessionsService(db);
  const spans = new SpansService(db);
  try {
    const calls: [string, () => Promise<unknown>][] = [
      [
        'sessions list (24 h, limit 50)',
        () => sessions.list(ADMIN, { projectId: null, limit: 50 }),
      ],
      [
        'sessions list, project-scoped',
        () => sessions.list(ADMIN, { projectId: 'default', limit: 50 }),
      ],
      [
        'sessions list by agent_name',
        () => sessions.list(ADMIN, { projectId: null, agentName: t.agent, limit: 50 }),
      ],
      ...(t.cursor
        ? [
            [
              'sessions list, next page (cursor)',
              () => sessions.list(ADMIN, { projectId: null, limit: 50, cursor: t.cursor }),
            ] as [string, () => Promise<unknown>],
          ]
        : []),
      ['session tree', () => sessions.tree(ADMIN, t.treeSession.id)],
      [
        'session tree, project-scoped',
        () => sessions.tree(ADMIN, t.treeSession.id, t.treeSession.projectId),
      ],
      ['lineage (24 h)', () => sessions.lineage(ADMIN, { projectId: null })],
      ['lineage (24 h), project-scoped', () => sessions.lineage(ADMIN, { projectId: 'default' })],
      ['spans by trace', () => spans.query(ADMIN, { projectId: null, traceId: t.trace.id })],
      [
        'spans by trace, project-scoped',
        () => spans.query(ADMIN, { projectId: t.trace.projectId, traceId: t.trace.id }),
      ],
      ['spans list, newest 100 (extra)', () => spans.query(ADMIN, { projectId: null, limit: 100 })],
      [
        'spans list, newest 100, project-scoped (extra)',
        () => spans.query(ADMIN, { projectId: 'default', limit: 100 }),
      ],
    ];
    const out: ExplainResult[] = [];
    for (const [name, call] of calls) {
      captured = [];
      await call();
      const queries = captured;
      for (const [i, q] of queries.entries()) {
        let plan = '';
        for (let run = 0; run < 3; run++) plan = await ex.explain(q.sql, q.params);
        out.push({
          name: queries.length > 1 ? `${name} [query ${i + 1}/${queries.length}]` : name,
          sql: q.sql,
          params: q.params,
          plan,
          executionMs: Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1] ?? Number.NaN),
          planningMs: Number(/Planning Time: ([\d.]+)/.exec(plan)?.[1] ?? Number.NaN),
        });
      }
    }
    return out;
  } finally {
    await ex.close();
  }
}

/** Standalone: explain against a loaded database, picking targets from it. */
async function main(): Promise<void> {
  const url = process.argv[2];
  if (!url) {
    process.stderr.write('usage: node --import tsx bench/read-explain.ts postgres://…\n');
    process.exit(2);
  }
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const [tree] =
    await client`select project_id, session_id from sessions where span_count = 200 order by last_call_at desc limit 1`;
  const [trace] =
    await client`select project_id, trace_id from spans where trace_id is not null and session_id in (select session_id from sessions where span_count between 5 and 50 limit 1) limit 1`;
  const [agent] =
    await client`select agent_name from sessions where agent_name is not null group by 1 order by count(*) desc limit 1`;
  await client.end();
  if (!tree || !trace || !agent) throw new Error('database holds no suitable data');
  const results = await explainReadQueries(
    { url },
    {
      treeSession: { projectId: String(tree.project_id), id: String(tree.session_id) },
      trace: { projectId: String(trace.project_id), id: String(trace.trace_id) },
      agent: String(agent.agent_name),
    },
  );
  for (const e of results) {
    process.stdout.write(
      `-- ${e.name}: execution ${e.executionMs} ms, planning ${e.planningMs} ms\n${e.sql.replace(/\s+/g, ' ').trim()}\nparams: ${JSON.stringify(e.params)}\n${e.plan}\n\n`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
