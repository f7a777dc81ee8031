import type { Logger } from 'pino';
import { HEALTH_TAGS, type HealthTag, type Span } from '../../model/span.ts';
import type { AlertSink, FireInput, Severity } from '../../model/alert.ts';

/**
 * Ingest's alerts (docs/alert-producers.md): `agent_failure` once per session when a committed batch carries an
 * unhealthy health tag, and the SDK's guard events (loop_detected, budget_exceeded,
 * circuit_breaker_open, and the soft budget alert budget_warning), which arrive as span tags, once
 * per session each. budget_warning is healthy (execution continues): it is no agent_failure. The sink deduplicates
 * for good (scope `forever`); a bounded memory of keys already fired spares it the repeats of a
 * session that keeps failing, and makes concurrent batches of one session fire once in-process.
 */
export const FAILURE_TAGS: ReadonlySet<HealthTag> = new Set<HealthTag>([
  'tool_failure',
  'loop_detected',
  'budget_exceeded',
  'circuit_breaker_open',
  'timeout',
  'schema_drift',
]);

type GuardTag = 'loop_detected' | 'budget_exceeded' | 'circuit_breaker_open' | 'budget_warning';
/**
 * A budget overrun costs money: critical. A loop or an open breaker was contained, and a soft
 * budget threshold is a heads-up before the hard limit: warning.
 */
export const GUARD_SEVERITY: Readonly<Record<GuardTag, Severity>> = {
  loop_detected: 'warning',
  budget_exceeded: 'critical',
  circuit_breaker_open: 'warning',
  budget_warning: 'warning',
};

const REMEMBERED_KEYS = 10_000;
const MAX_ERROR_CHARS = 200;

export class AgentFailureAlerts {
  /** project \0 dedupKey, oldest first (a Map keeps insertion order). */
  private readonly fired = new Map<string, true>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly deps: { sink: AlertSink; logger: Logger }) {}

  /** Called after a batch is committed; returns at once, the alerts go out in the background. */
  observe(spans: readonly Span[]): void {
    let hits: Span[] | undefined;
    for (const s of spans)
      if (s.healthTag !== null && (FAILURE_TAGS.has(s.healthTag) || isGuard(s.healthTag)))
        (hits ??= []).push(s);
    if (hits) for (const input of alertsFor(hits)) this.fire(input);
  }

  /** Resolves when every alert queued so far has been handed to the sink (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  forgetProject(projectId: string): void {
    const prefix = `${projectId}\u0000`;
    for (const key of this.fired.keys()) if (key.startsWith(prefix)) this.fired.delete(key);
  }

  private fire(input: FireInput): void {
    const key = `${input.projectId}\u0000${input.dedupKey}`;
    if (this.fired.has(key)) return;
    this.remember(key);
    const p = this.deps.sink.fire(input).catch((err: unknown) => {
      // Not fired: a later batch of the session may try again.
      this.fired.delete(key);
      this.deps.logger.error(
        { err, alert: input.dedupKey, project: input.projectId },
        'agent failure alert failed',
      );
    });
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private remember(key: string): void {
    this.fired.set(key, true);
    if (this.fired.size > REMEMBERED_KEYS) {
      const oldest = this.fired.keys().next();
      if (!oldest.done) this.fired.delete(oldest.value);
    }
  }
}

/**
 * One agent_failure per session of the batch with a failure tag (its most severe), plus one alert
 * per guard tag seen (budget_warning alone gives only its own alert).
 */
export function alertsFor(hits: readonly Span[]): FireInput[] {
  const worst = new Map<string, Span>();
  const guards = new Map<string, Span>();
  for (const s of hits) {
    const session = sessionOf(s);
    const k = `${s.projectId}\u0000${session}`;
    const seen = worst.get(k);
    if (s.healthTag !== null && FAILURE_TAGS.has(s.healthTag) && (!seen || rank(s) < rank(seen)))
      worst.set(k, s);
    if (isGuard(s.healthTag)) {
      const g = `${k}\u0000${s.healthTag}`;
      if (!guards.has(g)) guards.set(g, s);
    }
  }
  return [...[...worst.values()].map(agentFailure), ...[...guards.values()].map(guardAlert)];
}

function agentFailure(s: Span): FireInput {
  const tag = s.healthTag ?? 'tool_failure';
  const session = sessionOf(s);
  return {
    ...base(s),
    type: 'agent_failure',
    severity: 'warning',
    title: `Agent ${agentOf(s)} failed in session ${session} (${tag})`,
    message: `${tag} on ${s.serverName}/${s.toolName} in session ${session} of agent ${agentOf(s)}${errorOf(s)}`,
    dedupKey: `agent_failure:${session}`,
  };
}

function guardAlert(s: Span): FireInput {
  const tag = s.healthTag as GuardTag;
  const session = sessionOf(s);
  return {
    ...base(s),
    type: tag,
    severity: GUARD_SEVERITY[tag],
    title: `Agent ${agentOf(s)}: ${tag.replaceAll('_', ' ')} in session ${session}`,
    message: `The SDK guard reported ${tag} on ${s.serverName}/${s.toolName} in session ${session} of agent ${agentOf(s)}${errorOf(s)}`,
    dedupKey: `${tag}:${session}`,
  };
}

function base(
  s: Span,
): Pick<
  FireInput,
  'projectId' | 'serverName' | 'agentName' | 'sessionId' | 'dedupScope' | 'fields'
> {
  return {
    projectId: s.projectId,
    serverName: s.serverName,
    agentName: s.agentName,
    sessionId: s.sessionId,
    dedupScope: 'forever',
    // The chat shows at most 10 facts, five of them type, project, server, agent and session.
    fields: {
      health_tag: s.healthTag,
      tool_name: s.toolName,
      status: s.status,
      trace_id: s.traceId,
      span_id: s.spanId,
    },
  };
}

/** The session a span belongs to: its session id, else its trace, else (neither sent) itself. */
function sessionOf(s: Span): string {
  return s.sessionId ?? s.traceId ?? `span-${s.spanId}`;
}

function agentOf(s: Span): string {
  return s.agentName ?? '(unnamed)';
}

function errorOf(s: Span): string {
  if (!s.error) return '.';
  const e =
    s.error.length > MAX_ERROR_CHARS ? `${s.error.slice(0, MAX_ERROR_CHARS - 1)}…` : s.error;
  return `: ${e}`;
}

function isGuard(tag: HealthTag | null): tag is GuardTag {
  return (
    tag === 'loop_detected' ||
    tag === 'budget_exceeded' ||
    tag === 'circuit_breaker_open' ||
    tag === 'budget_warning'
  );
}

/** HEALTH_TAGS is ordered most severe first. */
function rank(s: Span): number {
  return s.healthTag === null ? HEALTH_TAGS.length : HEALTH_TAGS.indexOf(s.healthTag);
}
