import type { Alert, AlertSink, FireInput } from '../../src/alerts/types.ts';

/**
 * A small AlertSink for producer logic: it keeps what was fired and resolved, and applies the
 * dedup scopes of src/alerts/types.ts (open: while unresolved; forever: once per key).
 */
export class RecordingSink implements AlertSink {
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
      return Promise.resolve(null);
    }
    this.open.add(key);
    this.ever.add(key);
    this.fired.push(input);
    return Promise.resolve(toAlert(input, this.fired.length));
  }

  resolveKey(projectId: string, dedupKey: string): Promise<number> {
    const closed = this.open.delete(`${projectId}\u0000${dedupKey}`) ? 1 : 0;
    this.resolved.push({ projectId, dedupKey, closed });
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
