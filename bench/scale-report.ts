/**
 * The scale-out part of the ingest report: spans/s with N workers against one, per protocol, batch
 * and payload profile, and where the CPU of each server went (hottest Spyglass functions from its
 * CPU profiles, primary and workers together, beside PostgreSQL's share of the CPU per span).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HotFunction } from './profile-top.ts';

interface Cell {
  backend: string;
  workers: number;
  protocol: string;
  batch: number;
  profile: string;
  spansPerSec: number;
  serverUsPerSpan: number;
  postgresUsPerSpan: number;
}

export interface WhereItGoes {
  backend: string;
  workers: number;
  /** The .cpuprofile files this server's processes wrote. */
  files: string[];
  busyUs: number;
  top: HotFunction[];
  /** CPU over the server's cells: Spyglass (all processes) and the PostgreSQL cluster. */
  spyglassMs: number;
  postgresMs: number;
}

/** .cpuprofile files in `dir` not in `seen`, by full path. */
export function newProfiles(dir: string, seen: ReadonlySet<string>): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .filter((f) => !seen.has(f));
}

export function formatScaleReport(
  cells: readonly Cell[],
  where: readonly WhereItGoes[],
  skipped: readonly string[],
): string {
  const lines: string[] = [];
  const multi = cells.filter((c) => c.workers > 1);
  if (multi.length > 0) {
    lines.push(
      '',
      'Workers (PostgreSQL, one Redis; SPYGLASS_WORKERS=N against one process, same protocol, batch and profile):',
    );
    lines.push(
      'protocol    batch  profile  workers  spans/s   1 worker  ratio  srv µs/span (N / 1)  pg µs/span (N / 1)',
    );
    for (const c of multi) {
      const one = cells.find(
        (o) =>
          o.workers === 1 &&
          o.backend === c.backend &&
          o.protocol === c.protocol &&
          o.batch === c.batch &&
          o.profile === c.profile,
      );
      const f = (n: number | undefined) =>
        n === undefined || !Number.isFinite(n) ? '-' : Math.round(n).toLocaleString('en-US');
      lines.push(
        `${c.protocol.padEnd(10)}  ${String(c.batch).padStart(5)}  ${c.profile.padEnd(7)}  ${String(c.workers).padStart(7)}  ${f(c.spansPerSec).padStart(7)}  ` +
          `${f(one?.spansPerSec).padStart(8)}  ${one ? `${(c.spansPerSec / one.spansPerSec).toFixed(2)}×`.padStart(5) : '    -'}  ` +
          `${`${f(c.serverUsPerSpan)} / ${f(one?.serverUsPerSpan)}`.padStart(19)}  ${`${f(c.postgresUsPerSpan)} / ${f(one?.postgresUsPerSpan)}`.padStart(18)}`,
      );
    }
    lines.push(
      'ratio: spans/s with N workers / with one. On a machine with fewer free cores than workers + PostgreSQL needs, the',
    );
    lines.push(
      'ratio shows contention, not the design; read it with the "other CPU" column above.',
    );
  }
  for (const s of skipped) lines.push(`skipped: ${s}`);
  for (const w of where) {
    const total = w.spyglassMs + w.postgresMs;
    lines.push(
      '',
      `Where the CPU goes: ${w.backend}, ${w.workers} worker${w.workers === 1 ? '' : 's'} (${w.files.length} profile${w.files.length === 1 ? '' : 's'}, every cell of this server):`,
    );
    if (w.backend === 'postgres' && total > 0) {
      lines.push(
        `  PostgreSQL ${((w.postgresMs / total) * 100).toFixed(0)}% and Spyglass ${((w.spyglassMs / total) * 100).toFixed(0)}% of the CPU spent on the cells (${(total / 1000).toFixed(1)} CPU-s).`,
      );
    }
    if (w.top.length === 0)
      lines.push('  no CPU profile found (profiles are written when the processes exit cleanly)');
    else
      lines.push(
        `  hottest Spyglass functions, self time, share of Spyglass's busy time (${(w.busyUs / 1e6).toFixed(1)} s):`,
      );
    for (const f of w.top)
      lines.push(`  ${`${(f.share * 100).toFixed(1)}%`.padStart(6)}  ${f.name}`);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
