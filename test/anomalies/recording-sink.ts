import { randomUUID } from 'node:crypto';
import type { Alert, AlertSink, FireInput } from '../../src/alerts/types.ts';

/**
 * An AlertSink that keeps what producers asked for, in order, with the `open` dedup rule of the
 * real one (no second unresolved alert per project and key), so a test sees what a user's inbox
 * would receive.
 */
export class RecordingSink implements AlertSink {
  readonly events: string[] = [];
  readonly fired: FireInput[] = [];
  private readonly open = new Set<string>();

  fire(input: FireInput): Promise<Alert | null> {
    const key = `${input.projectId}\u0000${input.dedupKey}`;
    if (input.dedupScope === 'open' && this.open.has(key)) {
      this.events.push(`deduplicated ${input.type} ${input.dedupKey}`);
      return Promise.resolve(null);
    }
    this.open.add(key);
    this.events.push(`fire ${input.type} ${input.severity} ${input.dedupKey}`);
    this.fired.push(input);
    return Promise.resolve({
      id: randomUUID(),
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
    });
  }

  resolveKey(projectId: string, dedupKey: string): Promise<number> {
    const closed = this.open.delete(`${projectId}\u0000${dedupKey}`) ? 1 : 0;
    this.events.push(`resolve ${dedupKey}`);
    return Promise.resolve(closed);
  }
}
