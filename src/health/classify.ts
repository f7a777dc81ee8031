import type { BlastSeverity, CheckedStatus, HealthResult, HealthStatus } from '../model/health.ts';

/**
 * The status rules of docs/health.md#what-a-check-does-and-how-it-is-classified as pure functions: what a finished check is, what a stored result
 * reads as later (stale), and how bad an outage would be (blast radius, docs/health.md#rest).
 */
export interface CheckFacts {
  /** The handshake and tools/list succeeded. */
  reachable: boolean;
  /** tools/list answered but a tool failed validation. */
  invalidSchema: boolean;
  /** The configured health_tool failed or answered with an error. */
  probeFailed: boolean;
  /** The tool-schema hash (or the instructions) differ from the previous successful check. */
  drift: boolean;
}

export function classifyCheck(f: CheckFacts): CheckedStatus {
  if (!f.reachable) return 'down';
  if (f.invalidSchema || f.probeFailed || f.drift) return 'degraded';
  return 'up';
}

/**
 * The status a stored result reads as at `now`: `stale` once no check happened within the
 * server's interval plus its timeout (docs/health.md#what-a-check-does-and-how-it-is-classified). `unknown` is for servers with no result.
 */
export function readStatus(
  r: HealthResult,
  now: Date,
  intervalSeconds: number,
  timeoutSeconds: number,
): HealthStatus {
  if (!r.checkedAt) return 'unknown';
  const ageMs = now.getTime() - r.checkedAt.getTime();
  return ageMs > (intervalSeconds + timeoutSeconds) * 1000 ? 'stale' : r.status;
}

/**
 * The blast radius `server_status` (docs/health.md#rest allows only up, degraded, down): whether the server
 * serves now as far as a check can vouch. Only a check within its interval plus timeout says up or
 * degraded; a stale result, a server never checked, or any other stored value reads as down.
 */
export function blastStatus(
  r: HealthResult | undefined,
  now: Date,
  intervalSeconds: number,
  timeoutSeconds: number,
): CheckedStatus {
  const status = r ? readStatus(r, now, intervalSeconds, timeoutSeconds) : 'unknown';
  return status === 'up' || status === 'degraded' ? status : 'down';
}

/** docs/health.md#rest: CRITICAL > 5 agents or > 100 sessions; HIGH > 2 or > 20; MEDIUM any agent; else LOW. */
export function blastSeverity(totalAgents: number, totalSessions: number): BlastSeverity {
  if (totalAgents > 5 || totalSessions > 100) return 'CRITICAL';
  if (totalAgents > 2 || totalSessions > 20) return 'HIGH';
  if (totalAgents > 0) return 'MEDIUM';
  return 'LOW';
}
