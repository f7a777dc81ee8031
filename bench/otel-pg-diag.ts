/**
 * `--otel-pg-diag` of the otel-real row: where PostgreSQL's CPU goes in each cell. The cluster is
 * restarted with pg_stat_statements loaded (planning tracked) and every autovacuum run logged
 * (log_autovacuum_min_duration = 0); per cell the row then prints
 * - the cluster's CPU split by process kind and, for backends, by the command they showed
 *   (`/proc/PID/cmdline`: PostgreSQL's process title carries the running command's tag, e.g.
 *   COPY, INSERT, SELECT, ANALYZE, COMMIT), sampled every 20 ms; CPU of processes that ended
 *   between samples (autovacuum workers) counts as "exited",
 * - autovacuum's runs from the server log with their own CPU (user + system),
 * - maintenance runs per relation (pg_stat_user_tables),
 * - the statements that took the most time (pg_stat_statements: calls, execution and planning ms,
 *   WAL full-page images and bytes).
 * `--otel-pg-set 'autovacuum = off; …'` adds settings to the cluster's (ALTER SYSTEM), to see what a part
 * of the database's work costs by taking it away.
 * A diagnosis, not a figure to compare: loading pg_stat_statements and sampling /proc cost CPU too.
 */
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import type { PgCluster } from '../test/helpers/pg-cluster.ts';

const TICK_MS = 10;

/** Loads pg_stat_statements and logs every autovacuum run: a restart of the cluster. */
export async function enablePgDiag(cluster: PgCluster, settings: string[] = []): Promise<void> {
  const alter = async (...lines: string[]) => {
    const admin = postgres(cluster.adminUrl, { max: 1, onnotice: () => {} });
    try {
      for (const s of lines) await admin.unsafe(`alter system set ${s}`);
      await admin.unsafe(`select pg_reload_conf()`);
    } finally {
      await admin.end({ timeout: 5 });
    }
  };
  await alter(
    `shared_preload_libraries = 'pg_stat_statements'`,
    `log_autovacuum_min_duration = 0`,
    ...settings,
  );
  await cluster.restart();
  // The module's own settings are known once it is loaded.
  await alter(`pg_stat_statements.track_planning = on`);
}

function stat(pid: number): { ppid: number; selfMs: number; childrenMs: number } | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(rest[1]),
      selfMs: (Number(rest[11]) + Number(rest[12])) * TICK_MS,
      childrenMs: (Number(rest[13]) + Number(rest[14])) * TICK_MS,
    };
  } catch {
    return null;
  }
}

/** Time on CPU, ms (ns resolution: /proc/PID/schedstat's first field). */
function runMs(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ', 1)[0]) / 1e6;
  } catch {
    return null;
  }
}

function title(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** A process title's bucket: the auxiliary process, or "backend COMMAND" (null when idle). */
function bucketOf(t: string): string | null {
  const s = t.replace(/^postgres:\s*/, '');
  const aux =
    /^(checkpointer|background writer|walwriter|autovacuum launcher|autovacuum worker|logical replication launcher|stats collector)/.exec(
      s,
    );
  if (aux) return aux[1] as string;
  // "user db 127.0.0.1(port) COMMAND" or "user db [local] COMMAND", maybe "waiting"
  const m = /^\S+ \S+ (?:\S+\(\d+\)|\[local\]) (.*)$/.exec(s);
  if (!m) return `other ${s.slice(0, 30)}`;
  const cmd = (m[1] as string).replace(/ waiting$/, '');
  if (cmd === 'idle' || cmd === 'idle in transaction' || cmd === '') return null;
  return `backend ${cmd}`;
}

/**
 * Samples the CPU of the postmaster's children every `everyMs` and adds each one's growth to the
 * bucket of its title (an idle backend's to the last command it showed).
 */
export class PgCpuSampler {
  private readonly procs = new Map<
    number,
    { cpu: number; bucket: string | null; last: string | null }
  >();
  private readonly strangers = new Set<number>();
  private readonly buckets = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private pmSelf = 0;
  private pmChildren = 0;
  private diedLast = 0;

  constructor(
    private readonly pgPid: number,
    private readonly everyMs = 20,
  ) {
    const pm = stat(pgPid);
    this.pmSelf = pm?.selfMs ?? 0;
    this.pmChildren = pm?.childrenMs ?? 0;
    this.tick(false);
    this.timer = setInterval(() => this.tick(true), this.everyMs);
    this.timer.unref();
  }

  private add(bucket: string, ms: number): void {
    if (ms !== 0) this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + ms);
  }

  private tick(count: boolean): void {
    const seen = new Set<number>();
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || this.strangers.has(pid)) continue;
      const prev = this.procs.get(pid);
      // Known children: only their run time (ns) and title; others once, for their parent.
      if (!prev) {
        const s = stat(pid);
        if (!s) continue;
        if (s.ppid !== this.pgPid) {
          this.strangers.add(pid);
          continue;
        }
      }
      const cpu = runMs(pid);
      if (cpu === null) continue;
      seen.add(pid);
      const now = bucketOf(title(pid));
      // The interval's CPU goes to what the process showed at its start (a command runs on from
      // there); idle then, to what it shows now; idle both times, to the last command it showed.
      // A process first seen while counting was born since the last sample: all its CPU counts.
      const b = prev?.bucket ?? now ?? prev?.last ?? 'backend idle';
      if (count) this.add(b, cpu - (prev?.cpu ?? 0));
      this.procs.set(pid, { cpu, bucket: now, last: now ?? prev?.last ?? null });
    }
    for (const [pid, p] of this.procs) {
      if (seen.has(pid)) continue;
      // Its whole life's CPU lands in the postmaster's cutime; the part sampled is counted already.
      this.diedLast += p.cpu;
      this.procs.delete(pid);
    }
    const pm = stat(this.pgPid);
    if (pm && count) {
      this.add('postmaster', pm.selfMs - this.pmSelf);
      this.add('exited (unsampled part)', pm.childrenMs - this.pmChildren - this.diedLast);
    }
    if (pm) {
      this.pmSelf = pm.selfMs;
      this.pmChildren = pm.childrenMs;
    }
    this.diedLast = 0;
    if (this.strangers.size > 100_000) this.strangers.clear();
  }

  /** Cumulative ms per bucket since the sampler started. */
  snapshot(): Map<string, number> {
    this.tick(true);
    return new Map(this.buckets);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export interface PgDiagCell {
  cpuByBucket: [string, number][];
  autovacuum: { runs: string[]; cpuMs: number };
  maintenance: string[];
  statements: string[];
}

/** What a cell's diagnosis reads at its start. */
export interface PgDiagMark {
  cpu: Map<string, number>;
  logOffset: number;
  tables: Map<string, number[]>;
}

const TABLE_COUNTS = `select relname::text as name, analyze_count::int as a, autoanalyze_count::int as aa,
  vacuum_count::int as v, autovacuum_count::int as av from pg_stat_user_tables`;

export async function markPgDiag(
  sql: postgres.Sql,
  sampler: PgCpuSampler,
  dataDir: string,
): Promise<PgDiagMark> {
  await sql`create extension if not exists pg_stat_statements`;
  await sql`select pg_stat_statements_reset()`;
  return {
    cpu: sampler.snapshot(),
    logOffset: logSize(dataDir),
    tables: await tableCounts(sql),
  };
}

async function tableCounts(sql: postgres.Sql): Promise<Map<string, number[]>> {
  // The statistics collector's counters lag by up to half a second: ask for a fresh snapshot.
  await sql`select pg_stat_clear_snapshot()`;
  const rows = (await sql.unsafe(TABLE_COUNTS)) as unknown as {
    name: string;
    a: number;
    aa: number;
    v: number;
    av: number;
  }[];
  return new Map(rows.map((r) => [r.name, [r.a, r.aa, r.v, r.av]]));
}

const logSize = (dataDir: string): number => {
  try {
    return statSync(join(dataDir, 'server.log')).size;
  } catch {
    return 0;
  }
};

export async function readPgDiag(
  sql: postgres.Sql,
  sampler: PgCpuSampler,
  dataDir: string,
  mark: PgDiagMark,
  spans: number,
): Promise<PgDiagCell> {
  const cpu = sampler.snapshot();
  const perSpan = (ms: number) => ((ms * 1000) / Math.max(1, spans)).toFixed(1);
  const cpuByBucket = [...cpu]
    .map(([k, v]) => [k, v - (mark.cpu.get(k) ?? 0)] as [string, number])
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  const log = readFileSync(join(dataDir, 'server.log')).subarray(mark.logOffset).toString('utf8');
  const runs: string[] = [];
  let avCpu = 0;
  for (const entry of log.split(/\n(?=\S)/)) {
    const what = /automatic (vacuum|analyze) of table "([^"]+)"/.exec(entry);
    if (!what) continue;
    const u = /CPU: user: ([\d.]+) s, system: ([\d.]+) s, elapsed: ([\d.]+) s/.exec(entry);
    const ms = u ? (Number(u[1]) + Number(u[2])) * 1000 : 0;
    avCpu += ms;
    runs.push(
      `${what[1]} ${(what[2] as string).split('.').pop()}: ${ms.toFixed(0)} ms CPU, ${u ? (Number(u[3]) * 1000).toFixed(0) : '?'} ms`,
    );
  }
  const after = await tableCounts(sql);
  const maintenance: string[] = [];
  for (const [name, c] of after) {
    const b = mark.tables.get(name) ?? [0, 0, 0, 0];
    const d = c.map((v, i) => v - (b[i] ?? 0));
    if (d.some((v) => v > 0))
      maintenance.push(
        `${name}: analyze ${d[0]}, autoanalyze ${d[1]}, vacuum ${d[2]}, autovacuum ${d[3]}`,
      );
  }
  const stmts =
    (await sql.unsafe(`select left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as q, calls::int,
      total_exec_time::float8 as exec, total_plan_time::float8 as plan, plans::int, rows::float8 as rows,
      wal_fpi::float8 as fpi, wal_bytes::float8 as wal, shared_blks_dirtied::float8 as dirtied,
      jit_functions::int as jitf,
      (jit_generation_time + jit_inlining_time + jit_optimization_time + jit_emission_time)::float8 as jit
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
    order by total_exec_time + total_plan_time desc limit 12`)) as unknown as {
      q: string;
      calls: number;
      exec: number;
      plan: number;
      plans: number;
      rows: number;
      fpi: number;
      wal: number;
      dirtied: number;
      jitf: number;
      jit: number;
    }[];
  const statements = stmts.map(
    (s) =>
      `${s.calls} calls, exec ${s.exec.toFixed(0)} ms (${perSpan(s.exec)} µs/span), plan ${s.plan.toFixed(0)} ms in ${s.plans}, ${s.rows} rows, WAL ${(s.wal / Math.max(1, spans)).toFixed(0)} B/span (${s.fpi} FPI), ${s.dirtied} blks dirtied${s.jitf ? `, JIT ${s.jitf} fns ${s.jit.toFixed(0)} ms` : ''}: ${s.q}`,
  );
  return { cpuByBucket, autovacuum: { runs, cpuMs: avCpu }, maintenance, statements };
}

export function formatPgDiag(protocol: string, d: PgDiagCell, spans: number): string {
  const perSpan = (ms: number) => ((ms * 1000) / Math.max(1, spans)).toFixed(1);
  const total = d.cpuByBucket.reduce((a, [, v]) => a + v, 0);
  return [
    `pg-diag ${protocol}: PostgreSQL CPU by process ${total.toFixed(0)} ms (${perSpan(total)} µs/span over ${spans} spans)`,
    ...d.cpuByBucket.map(([k, v]) => `  ${k}: ${v.toFixed(0)} ms (${perSpan(v)} µs/span)`),
    `  autovacuum runs (server log): ${d.autovacuum.runs.length}, ${d.autovacuum.cpuMs.toFixed(0)} ms CPU (${perSpan(d.autovacuum.cpuMs)} µs/span)`,
    ...d.autovacuum.runs.map((r) => `    ${r}`),
    '  maintenance by relation:',
    ...d.maintenance.map((m) => `    ${m}`),
    '  statements (pg_stat_statements, most time first):',
    ...d.statements.map((s) => `    ${s}`),
  ].join('\n');
}

/**
 * `perf record` of the whole machine for one cell (`--otel-perf DIR`), reported afterwards for the
 * postgres processes only: their busiest functions (PostgreSQL's exported symbols; static ones
 * show as addresses), into DIR/<label>.txt.
 */
export function startPerf(dir: string, label: string): () => Promise<string> {
  const data = join(dir, `${label}.data`);
  const child = spawn('perf', ['record', '-q', '-F', '499', '-a', '-o', data], {
    stdio: 'ignore',
  });
  return async () => {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
    const report = await new Promise<string>((resolve) => {
      execFile(
        'perf',
        [
          'report',
          '-i',
          data,
          '--comm',
          'postgres',
          '--sort',
          'sym',
          '--stdio',
          '--percent-limit',
          '0.4',
        ],
        { maxBuffer: 64 * 1024 * 1024 },
        (_err, stdout) => resolve(stdout),
      );
    });
    const file = join(dir, `${label}.txt`);
    writeFileSync(file, report);
    return file;
  };
}
