/**
 * The `--stall-trace` summary of a live-load phase: what the server's event loop was held by
 * (bench/stall-trace.ts recorded it in the server) during the phase, and what the slowest liveness
 * probes overlapped.
 */

export interface StallRecord {
  /** [wall ms at start, duration ms, V8 kind: 1 scavenge, 2 minor mark-sweep, 4 mark-compact, 8 incremental, 16 weak callbacks] */
  gcs: [number, number, number][];
  /** [wall ms at the late tick, ms late, ms on a CPU and ms in the run queue since the tick before] */
  ticks: [number, number, number, number][];
}

export interface StallSummary {
  scavenges: { count: number; totalMs: number; p50Ms: number; maxMs: number };
  /** Every other collection (mark-compact, incremental marking steps, weak callbacks). */
  otherGc: { count: number; totalMs: number; maxMs: number };
  /** Late ticks over 20 ms: how many, and their lateness split into on-CPU and run-queue time. */
  lateTicks: { count: number; onCpuMs: number; runQueueMs: number };
  /** The probes at or above the phase's p99, and how many overlapped a collection or a late tick. */
  slowProbes: { count: number; minMs: number; withGc: number; withLateTick: number };
}

/** `probes`: [wall ms sent, ms to answer], with the phase's p99 of them; the window is the probes' own. */
export function summarise(
  record: StallRecord,
  probes: readonly (readonly [number, number])[],
  p99: number,
): StallSummary | null {
  if (probes.length === 0) return null;
  const from = Math.min(...probes.map((p) => p[0]));
  const to = Math.max(...probes.map((p) => p[0] + p[1]));
  const gcs = record.gcs.filter(([at]) => at >= from && at <= to);
  const scavenges = gcs
    .filter(([, , kind]) => kind === 1)
    .map(([, ms]) => ms)
    .sort((a, b) => a - b);
  const other = gcs.filter(([, , kind]) => kind !== 1).map(([, ms]) => ms);
  const late = record.ticks.filter(([at, ms]) => at >= from && at <= to && ms > 20);
  const slow = probes.filter(([, ms]) => ms >= p99);
  // A collection or a late tick that ran while the probe waited for its answer.
  const overlaps = (sent: number, ms: number, start: number, length: number) =>
    start < sent + ms && start + length > sent;
  return {
    scavenges: {
      count: scavenges.length,
      totalMs: sum(scavenges),
      p50Ms: scavenges[Math.floor(scavenges.length / 2)] ?? 0,
      maxMs: scavenges.at(-1) ?? 0,
    },
    otherGc: { count: other.length, totalMs: sum(other), maxMs: Math.max(0, ...other) },
    lateTicks: {
      count: late.length,
      onCpuMs: sum(late.map((t) => Math.min(t[1], t[2]))),
      runQueueMs: sum(late.map((t) => Math.min(t[1], t[3]))),
    },
    slowProbes: {
      count: slow.length,
      minMs: p99,
      withGc: slow.filter(([sent, ms]) => gcs.some(([at, d]) => overlaps(sent, ms, at, d))).length,
      withLateTick: slow.filter(([sent, ms]) =>
        late.some(([at, d]) => overlaps(sent, ms, at - d, d)),
      ).length,
    },
  };
}

export function renderStalls(phase: string, s: StallSummary): string {
  const f = (ms: number) => ms.toFixed(1);
  return (
    `${phase}: scavenges ${s.scavenges.count} (${f(s.scavenges.totalMs)} ms, p50 ${f(s.scavenges.p50Ms)}, max ${f(s.scavenges.maxMs)}), ` +
    `other GC ${s.otherGc.count} (${f(s.otherGc.totalMs)} ms, max ${f(s.otherGc.maxMs)}); ` +
    `late ticks > 20 ms ${s.lateTicks.count} (on CPU ${f(s.lateTicks.onCpuMs)} ms, run queue ${f(s.lateTicks.runQueueMs)} ms); ` +
    `probes ≥ p99 (${f(s.slowProbes.minMs)} ms) ${s.slowProbes.count}: ${s.slowProbes.withGc} during a GC, ${s.slowProbes.withLateTick} during a late tick`
  );
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
