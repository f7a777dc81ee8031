/**
 * Loaded into the live-load row's server with `--stall-trace` (node --import, after tsx's loader),
 * to say where the liveness tail comes from: every garbage collection (start, duration, kind), and
 * every late tick of a 2 ms timer (the event loop held for longer than 8 ms) with how much of that
 * time the main thread was on a CPU and how much it waited for one (/proc/thread-self/schedstat).
 * Written as JSON to SPYGLASS_BENCH_STALL_TRACE when the process exits. Costs a timer every 2 ms,
 * so it is off unless asked for. Times are wall-clock ms, to be matched with the probe's answers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import type { StallRecord } from './stall-report.ts';

const TICK_MS = 2;
const LATE_MS = 8;

const path = process.env.SPYGLASS_BENCH_STALL_TRACE;
if (path) start(path);

function start(out: string): void {
  const origin = performance.timeOrigin;
  const record: StallRecord = { gcs: [], ticks: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
      record.gcs.push([origin + e.startTime, e.duration, kind]);
    }
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  let sched = schedstat();
  setInterval(() => {
    const now = performance.now();
    const next = schedstat();
    const late = now - last - TICK_MS;
    if (late > LATE_MS)
      record.ticks.push([origin + now, late, next.cpuMs - sched.cpuMs, next.waitMs - sched.waitMs]);
    last = now;
    sched = next;
  }, TICK_MS).unref();
  process.on('exit', () => writeFileSync(out, JSON.stringify(record)));
}

/** The main thread's time on a CPU and waiting in the run queue, ms since it started (0 where unknown). */
function schedstat(): { cpuMs: number; waitMs: number } {
  try {
    const [run = 0, wait = 0] = readFileSync('/proc/thread-self/schedstat', 'utf8')
      .split(' ')
      .map(Number);
    return { cpuMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return { cpuMs: 0, waitMs: 0 };
  }
}
