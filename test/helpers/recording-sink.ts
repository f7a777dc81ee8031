import type { Alert, AlertSink, FireInput } from '../../src/model/alert.ts';

/**
 * An AlertSink for producer logic (monitor, ingest, anomaly and SLO producers): it keeps what was
 * fired and resolved, in order, and applies the dedup scopes of src/model/alert.ts the way the
 * real AlertService does (open: no second unresolved alert per project and key; forever: once per
 * key), so a test sees what a user's inbox would receive. The end-to-end tests use the real one.
 */
export class RecordingSink implements AlertSink {
  /** `fire <type> <severity> <key>`, `deduplicated <type> <key>`, `resolve <key>`, in order. */
  readonly events: string[] = [];
  readonly fired: FireInput[] = [];
  readonly resolved: { projectId: string; dedupKey: string; closed: number }[] = [];
  /** Fire calls that were suppressed by the dedup key. */
  deduplicated = 0;
  private readonly open = new Set<string>();
  private readonly ever = new Set<string>();

  fire(input: FireInput): Promise<Alert | null> {
    const key = `${input.projectId}\u0000${input.dedupKey}`;
    if (this.open.has(key) || (input.dedupScope === 'forever' && this.ever.has(key))) {
      this.deduplicated++;
      this.events.push(`deduplicated ${input.type} ${input.dedupKey}`);
      return Promise.resolve(null);
    }
    this.open.add(key);
    this.ever.add(key);
    this.fired.push(input);
    this.events.push(`fire ${input.type} ${input.severity} ${input.dedupKey}`);
    return Promise.resolve(toAlert(input, this.fired.length));
  }

  resolveKey(projectId: string, dedupKey: string): Promise<number> {
    const closed = this.open.delete(`${projectId}\u0000${dedupKey}`) ? 1 : 0;
    this.resolved.push({ projectId, dedupKey, closed });
    this.events.push(`resolve ${dedupKey}`);
    return Promise.resolve(closed);
  }

  types(): string[] {
    return this.fired.map((f) => f.type);
  }
}

function toAlert(input: FireInput, n: number): Alert {
  return {
    id: String(n),
    type: input.type,
    severity: input.severity,
    title: input.title,
    message: input.message,
    projectId: input.projectId,
    serverName: input.serverName ?? null,
    agentName: input.agentName ?? null,
    sessionId: input.sessionId ?? null,
    status: 'firing',
    firedAt: new Date(),
    acknowledgedAt: null,
    resolvedAt: null,
    snoozedUntil: null,
    fields: input.fields ?? {},
    delivery: 'skipped',
    deliveryError: null,
  };
}
