import { sql } from 'drizzle-orm';
import { execute, type Db } from './db.ts';
import { sumLineage } from './lineage-repo.ts';
import { readsFromReplica } from './read-routing.ts';
import { findSessionRow, listSessionRows, listSessionSpanValues } from './sessions-repo.ts';
import { listSpanValues } from './spans-repo.ts';

/**
 * Each PostgreSQL connection's first reads of the day-partitioned spans table load its catalog
 * entries (9 partitions of 8 indexes each at 1,000,000 spans) and plan a prepared statement afresh
 * for its first five runs before PostgreSQL keeps a generic plan: 20-60 ms of the backend's CPU
 * for the first session tree on a connection, 2-12 ms of planning for each of the next four. The
 * pool hands queries to its idle connections in turn, so each of them passes that on to a user's
 * request (the session tree's tail, docs/benchmarks.md, the session tree's first reads per
 * connection). warmReads pays it once, after the server is ready: it opens the pool's connections
 * and runs the hot read statements on each of them as many times as PostgreSQL plans a prepared
 * statement afresh, with the texts the services use (the same repository functions), so each
 * connection keeps the statements prepared and their plans cached.
 *
 * Every round sends one run to each of the `connections` at once: postgres.js gives each query of
 * a burst its own idle connection, then opens a closed one, so the first burst opens the whole pool
 * and every later one reaches each connection once. A user's query meanwhile waits behind at most
 * one warm-up statement on a connection (postgres.js queues it there); nothing is reserved. A
 * failed statement (the database down, a table missing) ends the warm-up quietly: it is an
 * optimisation, never a reason for a request or the start to fail.
 */
export interface WarmReadsOptions {
  /** The pool's size (the read pool's, with a replica). */
  connections: number;
  /** Stops after the burst in flight. */
  signal?: AbortSignal;
  /**
   * Runs of the session tree's spans statement per connection; default PostgreSQL's five custom
   * plans and its first generic one. The others run once (their catalog entries, their statement
   * prepared).
   */
  runs?: number;
  /** The row limits the services ask with (read-warm-up.ts READ_LIMITS). */
  limits: ReadLimits;
}

/**
 * The row limits of the services' reads: a page's default size and the one more row each reads
 * to see whether there is a next, or the tree's cap and one more. Given by the caller (the
 * services own them), so each statement is planned as the services run it.
 */
export interface ReadLimits {
  treeSpans: number;
  spans: number;
  sessions: number;
}

export interface WarmReadsResult {
  /** Statements sent (bursts × connections). */
  statements: number;
  /** False when stopped by the signal or a failure before the end. */
  finished: boolean;
  error?: unknown;
}

/** The largest session whose tree the warm-up reads. */
const WARM_SESSION_SPANS = 500;

/** PostgreSQL makes a custom plan for a prepared statement's first five runs, and decides on the sixth. */
export const PLAN_RUNS = 6;

/** The statements of the hottest reads, each run as its service runs it (the same texts and parameter types). */
function readStatements(
  db: Db,
  target: { projectId: string; sessionId: string },
  now: Date,
  planRuns: number,
  limits: ReadLimits,
): { name: string; runs: number; run: () => Promise<unknown> }[] {
  const { projectId, sessionId } = target;
  const day = new Date(now.getTime() - 24 * 3_600_000);
  return [
    // The session tree: its row (without and with a project) and its spans, one text for both.
    {
      name: 'session tree spans',
      runs: planRuns,
      run: () => listSessionSpanValues(db, null, sessionId, limits.treeSpans),
    },
    {
      name: 'session row',
      runs: 1,
      run: () => findSessionRow(db, null, sessionId),
    },
    {
      name: 'session row, by project',
      runs: 1,
      run: () => findSessionRow(db, projectId, sessionId),
    },
    // The spans lists: the newest, by project or not, and a trace's spans across projects.
    {
      name: 'newest spans',
      runs: 1,
      run: () => listSpanValues(db, { projectId: null, limit: limits.spans }),
    },
    {
      name: 'newest spans, by project',
      runs: 1,
      run: () => listSpanValues(db, { projectId, limit: limits.spans }),
    },
    {
      name: 'spans by trace',
      runs: 1,
      run: () => listSpanValues(db, { projectId: null, traceId: sessionId, limit: limits.spans }),
    },
    // The sessions list, by project or not.
    {
      name: 'sessions list',
      runs: 1,
      run: () => listSessionRows(db, { projectId: null, since: day, limit: limits.sessions }),
    },
    {
      name: 'sessions list, by project',
      runs: 1,
      run: () => listSessionRows(db, { projectId, since: day, limit: limits.sessions }),
    },
    // Lineage runs unnamed (planned on every run): once loads its tables' catalog entries.
    {
      name: 'lineage',
      runs: 1,
      run: () => sumLineage(db, null, day, now),
    },
  ];
}

/**
 * Warms `connections` connections of `db`'s pool for the hot reads (above). `db` is the store's:
 * with a read replica, the reads' pool is warmed (readsFromReplica). Resolves when done, stopped
 * or failed, never rejects.
 */
export async function warmReads(db: Db, opts: WarmReadsOptions): Promise<WarmReadsResult> {
  return readsFromReplica(() => warm(db, opts));
}

async function warm(db: Db, opts: WarmReadsOptions): Promise<WarmReadsResult> {
  const n = Math.max(1, opts.connections);
  const runs = opts.runs ?? PLAN_RUNS;
  let statements = 0;
  const stopped = () => opts.signal?.aborted === true;
  try {
    // A real session (the newest of at most a few hundred spans) when there is one, so the reads
    // return rows as users' do; any id gives the same plans. Not a long-running agent's session of
    // thousands of spans: the tree's statement runs `runs` × `connections` times.
    const { rows } = await execute<{ p: string; s: string }>(
      db,
      sql`select project_id as p, session_id as s from sessions where span_count <= ${WARM_SESSION_SPANS}
          order by last_call_at desc limit 1`,
    );
    const target = { projectId: rows[0]?.p ?? 'default', sessionId: rows[0]?.s ?? '' };
    for (const s of readStatements(db, target, new Date(), runs, opts.limits)) {
      for (let r = 0; r < s.runs; r++) {
        if (stopped()) return { statements, finished: false };
        await Promise.all(Array.from({ length: n }, () => s.run()));
        statements += n;
      }
    }
    return { statements, finished: true };
  } catch (error) {
    return { statements, finished: false, error };
  }
}
