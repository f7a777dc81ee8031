/** Service level objectives (docs/slos.md): a definition per agent and metric, and its status now. */

export const SLO_METRICS = ['success_rate', 'latency_p99'] as const;
export type SloMetric = (typeof SLO_METRICS)[number];

export interface Slo {
  sloId: string;
  projectId: string;
  agentName: string;
  /** success_rate or latency_p99. */
  metric: string;
  /** success_rate: a percentage in (0, 100]; latency_p99: milliseconds. */
  threshold: number;
  windowHours: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What a caller sends to create an SLO (agentName, metric and threshold required) or change one
 * (any subset; left out is unchanged, null is refused). SloService checks the values. `projectId`
 * on create may repeat the project the request is for.
 */
export interface SloInput {
  agentName?: string | null | undefined;
  metric?: string | null | undefined;
  threshold?: number | null | undefined;
  windowHours?: number | null | undefined;
  projectId?: string | null | undefined;
}

export type SloStatus = 'ok' | 'breached' | 'no_data';

/** One SLO judged over the sessions of its window. */
export interface SloEvaluation {
  sloId: string;
  agentName: string;
  metric: string;
  /** The threshold: a percentage for success_rate, milliseconds for latency_p99. */
  target: number;
  /** Percentage of good sessions, or the p99 session duration in ms; null with no sessions. */
  currentValue: number | null;
  windowHours: number;
  status: SloStatus;
  sampleSize: number;
  evaluatedAt: Date;
  /** When the SLO entered this status (a breach's start); null until recorded. */
  since: Date | null;
}

/** An SLO as REST and the CLI print it (docs/slos.md#rest). */
export function toSloJson(s: Slo) {
  return {
    slo_id: s.sloId,
    project_id: s.projectId,
    agent_name: s.agentName,
    metric: s.metric,
    threshold: s.threshold,
    window_hours: s.windowHours,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
export type SloJson = ReturnType<typeof toSloJson>;

/** An SLO status item as REST and the CLI print it (docs/slos.md#rest). */
export function toSloStatusJson(e: SloEvaluation) {
  return {
    slo_id: e.sloId,
    agent_name: e.agentName,
    metric: e.metric,
    target: e.target,
    current_value: e.currentValue,
    window_hours: e.windowHours,
    status: e.status,
    sample_size: e.sampleSize,
    evaluated_at: e.evaluatedAt.toISOString(),
  };
}
export type SloStatusJson = ReturnType<typeof toSloStatusJson>;
