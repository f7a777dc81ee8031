import { SpyglassError, type ValidationIssue } from '../errors.ts';
import {
  countOpen,
  findAlert,
  listInbox,
  toAlert,
  updateAlert,
  type AlertRow,
} from '../store/alerts-repo.ts';
import type { Db } from '../store/db.ts';
import { decodeCursor, encodeCursor } from '../traces/cursor.ts';
import { parseEnumParam } from '../traces/query-params.ts';
import { checkInt, type IntRange } from '../model/int-range.ts';
import {
  ALERT_STATUSES,
  ALERT_TYPES,
  SEVERITIES,
  SNOOZE_MINUTES,
  type Alert,
  type AlertCounts,
  type AlertStatus,
} from '../model/alert.ts';

/**
 * The inbox lifecycle (docs/alerts.md): firing → acknowledged → resolved; firing → snoozed → firing when
 * the snooze ends; resolve from any unresolved state. Illegal moves are 409s that say why.
 */
export interface InboxQuery {
  status?: string | undefined;
  type?: string | undefined;
  severity?: string | undefined;
  limit?: number | null | undefined;
  cursor?: string | undefined;
}

/** Alerts one inbox page holds. */
export const INBOX_LIMIT: IntRange = { min: 1, max: 200, default: 50 };

export interface InboxPage {
  alerts: Alert[];
  nextCursor: string | null;
}

const ACTIVE: readonly AlertStatus[] = ['firing', 'acknowledged', 'snoozed'];
const STATUS_FILTERS = [...ALERT_STATUSES, 'active', 'all'] as const;

export const alertCursor = (a: Alert) => encodeCursor(a.firedAt, a.id);

export async function readInbox(
  db: Db,
  projectId: string,
  q: InboxQuery,
  now: Date,
): Promise<InboxPage> {
  const issues: ValidationIssue[] = [];
  const status = parseEnumParam('status', q.status, STATUS_FILTERS, issues) ?? 'active';
  const type = parseEnumParam('type', q.type, ALERT_TYPES, issues);
  const severity = parseEnumParam('severity', q.severity, SEVERITIES, issues);
  const limit = checkInt('limit', q.limit, INBOX_LIMIT, issues);
  const before = q.cursor ? decodeCursor(q.cursor, issues) : undefined;
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
  const statuses = status === 'active' ? ACTIVE : status === 'all' ? ALERT_STATUSES : [status];
  const rows = await listInbox(
    db,
    { projectId, statuses, type, severity, before, limit: limit + 1 },
    now,
  );
  const alerts = rows.slice(0, limit).map((r) => toAlert(r, now));
  const last = alerts.at(-1);
  return { alerts, nextCursor: rows.length > limit && last ? alertCursor(last) : null };
}

export async function countAlerts(db: Db, projectId: string, now: Date): Promise<AlertCounts> {
  const counts: AlertCounts = {
    firing: 0,
    acknowledged: 0,
    snoozed: 0,
    needsAttention: 0,
    bySeverity: { critical: 0, warning: 0, info: 0 },
  };
  for (const r of await countOpen(db, projectId, now)) {
    if (r.status === 'firing' || r.status === 'acknowledged' || r.status === 'snoozed')
      counts[r.status] += r.n;
    if (
      r.status === 'firing' &&
      (r.severity === 'critical' || r.severity === 'warning' || r.severity === 'info')
    )
      counts.bySeverity[r.severity] += r.n;
  }
  counts.needsAttention = counts.firing;
  return counts;
}

export type Transition =
  { action: 'ack' } | { action: 'resolve' } | { action: 'snooze'; minutes: number };

/**
 * Snooze minutes: one of SNOOZE_MINUTES (docs/alerts.md), else a 422 naming `minutes`, for every
 * adapter (REST and GraphQL only type the value as an integer).
 */
export function snoozeMinutes(minutes: number): number {
  if ((SNOOZE_MINUTES as readonly number[]).includes(minutes)) return minutes;
  throw new SpyglassError('validation', 'invalid snooze', {
    issues: [
      {
        loc: ['body', 'minutes'],
        msg: `Input should be one of ${SNOOZE_MINUTES.join(', ')} (minutes)`,
        type: 'enum',
      },
    ],
  });
}

export async function transition(
  db: Db,
  projectId: string,
  id: string,
  t: Transition,
  now: Date,
): Promise<Alert> {
  const minutes = t.action === 'snooze' ? snoozeMinutes(t.minutes) : 0;
  const row = await findAlert(db, projectId, id);
  if (!row) throw new SpyglassError('not_found', `alert ${id} not found`);
  const current = toAlert(row, now).status;
  let next: Partial<AlertRow>;
  if (t.action === 'resolve') {
    if (current === 'resolved') throw conflict(id, current, 'it is already resolved');
    next = { status: 'resolved', resolvedAt: now, snoozedUntil: null };
  } else if (t.action === 'ack') {
    if (current !== 'firing')
      throw conflict(id, current, 'only a firing alert can be acknowledged');
    next = { status: 'acknowledged', acknowledgedAt: now, snoozedUntil: null };
  } else {
    if (current !== 'firing') throw conflict(id, current, 'only a firing alert can be snoozed');
    next = { status: 'snoozed', snoozedUntil: new Date(now.getTime() + minutes * 60_000) };
  }
  const updated = await updateAlert(db, projectId, id, row.status, next);
  // Someone else moved it between the read and the write: report what it is now.
  if (!updated)
    throw new SpyglassError(
      'conflict',
      `alert ${id} changed while this request ran; read it again`,
    );
  return toAlert(updated, now);
}

function conflict(id: string, status: AlertStatus, why: string): SpyglassError {
  return new SpyglassError('conflict', `alert ${id} is ${status}; ${why}`);
}
