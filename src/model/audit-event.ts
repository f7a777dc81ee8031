/** One entry of the audit log (docs/auth.md): who did what to which resource, and how it ended. */
export interface AuditEvent {
  eventId: string;
  timestamp: Date;
  actor: string;
  action: string;
  resource: string;
  result: string;
  projectId: string | null;
}

/** Which entries to list; every field given must match (action, actor and result exactly). */
export interface AuditFilter {
  action?: string | undefined;
  actor?: string | undefined;
  result?: 'success' | 'failure' | undefined;
  /** The resource starts with this text (`project:` or `project:acme`), taken literally. */
  resourcePrefix?: string | undefined;
  /** At or after this instant. */
  since?: Date | undefined;
  /** Before this instant. */
  until?: Date | undefined;
}

/** The API's JSON for an entry (GET /api/audit/logs). */
export function toAuditEventJson(e: AuditEvent) {
  return {
    event_id: e.eventId,
    timestamp: e.timestamp.toISOString(),
    actor: e.actor,
    action: e.action,
    resource: e.resource,
    result: e.result,
  };
}
