import type { CheckReport } from '../../health/checker.ts';
import type { HealthResult } from '../../model/health.ts';
import type { FireInput } from '../../model/alert.ts';
import {
  downKey,
  everyFailureKey,
  highLatency,
  latencyKey,
  mcpDown,
  mcpRecovered,
  schemaDrift,
} from './monitor-messages.ts';

/**
 * The monitor's alert rules (docs/alert-producers.md) as a pure step: the state of one server plus one completed
 * check give the next state and the alerts to fire or resolve. Only `down` counts as a failure: a
 * `degraded` server answered (its probe tool failed, a schema is invalid or drifted), so it neither
 * adds to the failure count nor keeps an outage open.
 */
export interface MonitorRules {
  /** Failed checks in a row before `mcp_down` (alerts.consecutive_failures). */
  consecutiveFailures: number;
  /** One `mcp_down` per failed check instead of one per outage (monitor.alert_on_every_failure). */
  alertOnEveryFailure: boolean;
  /** `high_latency` above this many times the baseline (alerts.latency_spike_multiplier). */
  latencySpikeMultiplier: number;
}

/** Latencies of recent answering checks the baseline is the median of; fewer than MIN is no baseline. */
export const BASELINE_SAMPLES = 50;
export const MIN_BASELINE_SAMPLES = 5;
export const BASELINE_DAYS = 30;

export interface ServerState {
  /** Failed checks in a row. */
  failures: number;
  /** An outage was reported (or the stored history says it would have been): recovery is due. */
  down: boolean;
  /** Keys of the per-check alerts of this outage (alert_on_every_failure), resolved on recovery. */
  downKeys: string[];
  /** Latencies of recent checks that answered, oldest first, at most BASELINE_SAMPLES. */
  latencies: number[];
  /** Whether a high_latency alert is open; `unknown` after a restart, settled by the next check. */
  slow: boolean | 'unknown';
}

export type MonitorAction =
  { kind: 'fire'; input: FireInput } | { kind: 'resolve'; projectId: string; dedupKey: string };

/**
 * The state a server had before `currentId`, rebuilt from its stored results (newest first), so a
 * restart neither forgets an outage in progress nor reports it twice.
 */
export function seedState(
  stored: readonly HealthResult[],
  currentId: string,
  rules: MonitorRules,
  now: Date,
): ServerState {
  const earlier = stored.filter((r) => r.id !== currentId);
  let failures = 0;
  while (failures < earlier.length && earlier[failures]?.status === 'down') failures++;
  const down = rules.alertOnEveryFailure ? failures > 0 : failures >= rules.consecutiveFailures;
  const downKeys = rules.alertOnEveryFailure
    ? earlier.slice(0, failures).map((r) => everyFailureKey(r.serverName, r.id))
    : [];
  const since = now.getTime() - BASELINE_DAYS * 86_400_000;
  const latencies = earlier
    .filter(
      (r) => r.status !== 'down' && r.latencyMs !== null && (r.checkedAt?.getTime() ?? 0) >= since,
    )
    .slice(0, BASELINE_SAMPLES)
    .map((r) => r.latencyMs ?? 0)
    .reverse();
  // Without enough history no latency alert can have been raised.
  return {
    failures,
    down,
    downKeys,
    latencies,
    slow: latencies.length >= MIN_BASELINE_SAMPLES ? 'unknown' : false,
  };
}

export function emptyState(): ServerState {
  return { failures: 0, down: false, downKeys: [], latencies: [], slow: false };
}

/** Applies one completed check; `state` is not modified. */
export function step(
  state: ServerState,
  report: CheckReport,
  rules: MonitorRules,
): { state: ServerState; actions: MonitorAction[] } {
  const r = report.result;
  const next: ServerState = {
    ...state,
    downKeys: [...state.downKeys],
    latencies: [...state.latencies],
  };
  const actions: MonitorAction[] = [];
  const fire = (input: FireInput) => actions.push({ kind: 'fire', input });
  const resolve = (dedupKey: string) =>
    actions.push({ kind: 'resolve', projectId: r.projectId, dedupKey });

  if (r.status === 'down') {
    next.failures++;
    if (rules.alertOnEveryFailure) {
      const key = everyFailureKey(r.serverName, r.id);
      next.downKeys.push(key);
      next.down = true;
      fire(mcpDown(r, next.failures, key));
    } else if (!next.down && next.failures >= rules.consecutiveFailures) {
      next.down = true;
      fire(mcpDown(r, next.failures, downKey(r.serverName)));
    }
  } else {
    if (next.down) {
      fire(mcpRecovered(r, next.failures));
      for (const key of [downKey(r.serverName), ...next.downKeys]) resolve(key);
      next.down = false;
      next.downKeys = [];
    }
    next.failures = 0;
    if (r.latencyMs !== null)
      judgeLatency(next, { ...r, latencyMs: r.latencyMs }, rules, fire, resolve);
  }
  if (report.drift) fire(schemaDrift(r, report.drift));
  return { state: next, actions };
}

function judgeLatency(
  s: ServerState,
  r: CheckReport['result'] & { latencyMs: number },
  rules: MonitorRules,
  fire: (input: FireInput) => void,
  resolve: (key: string) => void,
): void {
  const baseline = s.latencies.length >= MIN_BASELINE_SAMPLES ? median(s.latencies) : null;
  if (baseline !== null && baseline > 0) {
    if (r.latencyMs > baseline * rules.latencySpikeMultiplier) {
      if (s.slow !== true) fire(highLatency(r, baseline, rules.latencySpikeMultiplier));
      s.slow = true;
    } else {
      if (s.slow !== false) resolve(latencyKey(r.serverName));
      s.slow = false;
    }
  }
  // A slow spell enters the baseline too: if the server stays slow, that becomes its normal.
  s.latencies.push(r.latencyMs);
  if (s.latencies.length > BASELINE_SAMPLES) s.latencies.shift();
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const hi = sorted[mid] ?? 0;
  return sorted.length % 2 === 1 ? hi : ((sorted[mid - 1] ?? hi) + hi) / 2;
}
