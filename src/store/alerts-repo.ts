import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Alert, AlertStatus, AlertType, Severity } from '../model/alert.ts';
import { execute, timestamptz, type Db } from './db.ts';
import { fromPg, fromPgText, pgText, toPg } from './pg-text.ts';
import { alertConfigs, alertDedup, alerts } from './schema-alerts.ts';

/**
 * Inbox reads and writes (schema-alerts.ts). Every query names the project: no id reaches another
 * project's rows. Snoozes are judged against the caller's clock, so an expired snooze reads as
 * firing even before the waker has rewritten the row (after a restart, say).
 */
export type AlertRow = typeof alerts.$inferSelect;
export type NewAlertRow = typeof alerts.$inferInsert;
export type Delivery = Alert['delivery'];

export interface InboxFilter {
  projectId: string;
  /** Effective statuses wanted (the active view: everything but resolved). */
  statuses: readonly AlertStatus[];
  type?: AlertType | undefined;
  severity?: Severity | undefined;
  before?: { time: Date; id: string } | undefined;
  limit: number;
}

/** The status a reader sees: a snooze that has ended is firing again. */
function effectiveStatus(now: Date): SQL {
  return sql`(case when ${alerts.status} = 'snoozed' and ${alerts.snoozedUntil} <= ${timestamptz(now)} then 'firing' else ${alerts.status} end)`;
}

export function toAlert(row: AlertRow, now: Date): Alert {
  const expired = row.status === 'snoozed' && row.snoozedUntil !== null && row.snoozedUntil <= now;
  return {
    id: row.id,
    type: row.type as AlertType,
    severity: row.severity as Severity,
    title: fromPgText(row.title),
    message: fromPgText(row.message),
    projectId: row.projectId,
    serverName: row.serverName,
    agentName: row.agentName,
    sessionId: row.sessionId,
    status: expired ? 'firing' : (row.status as AlertStatus),
    firedAt: row.firedAt,
    acknowledgedAt: row.acknowledgedAt,
    resolvedAt: row.resolvedAt,
    snoozedUntil: expired ? null : row.snoozedUntil,
    fields: fromPg((row.fields ?? {}) as Alert['fields']),
    delivery: row.delivery as Delivery,
    deliveryError: row.deliveryError,
  };
}

/**
 * Inserts unless the open-alert index already holds the key (concurrent fires make one row).
 * With `forever`, the dedup table's primary key decides first, in the same transaction. Titles,
 * messages and fields quote MCP servers (errors, tool names): pg-text.ts stores them escaped.
 */
export async function insertAlert(
  db: Db,
  input: NewAlertRow,
  forever: boolean,
): Promise<AlertRow | null> {
  const row = {
    ...input,
    title: pgText(input.title),
    message: pgText(input.message),
    dedupKey: pgText(input.dedupKey),
    fields: toPg(input.fields),
  };
  return db.transaction(async (tx) => {
    if (forever) {
      const claimed = await tx
        .insert(alertDedup)
        .values({ projectId: row.projectId, dedupKey: row.dedupKey, firedAt: row.firedAt })
        .onConflictDoNothing()
        .returning();
      if (claimed.length === 0) return null;
    }
    const inserted = await tx
      .insert(alerts)
      .values(row)
      .onConflictDoNothing({
        target: [alerts.projectId, alerts.dedupKey],
        where: sql`status <> 'resolved'`,
      })
      .returning();
    return inserted[0] ?? null;
  });
}

export async function findAlert(
  db: Db,
  projectId: string,
  id: string,
): Promise<AlertRow | undefined> {
  const rows = await db
    .select()
    .from(alerts)
    .where(and(eq(alerts.projectId, projectId), eq(alerts.id, id)))
    .limit(1);
  return rows[0];
}

/** Moves one alert if its stored status is still `from` (a concurrent change makes it return undefined). */
export async function updateAlert(
  db: Db,
  projectId: string,
  id: string,
  from: string,
  set: Partial<NewAlertRow>,
): Promise<AlertRow | undefined> {
  const rows = await db
    .update(alerts)
    .set(set)
    .where(and(eq(alerts.projectId, projectId), eq(alerts.id, id), eq(alerts.status, from)))
    .returning();
  return rows[0];
}

export async function resolveByKey(
  db: Db,
  projectId: string,
  dedupKey: string,
  now: Date,
): Promise<number> {
  const rows = await db
    .update(alerts)
    .set({ status: 'resolved', resolvedAt: now, snoozedUntil: null })
    .where(
      and(
        eq(alerts.projectId, projectId),
        eq(alerts.dedupKey, pgText(dedupKey)),
        sql`${alerts.status} <> 'resolved'`,
      ),
    )
    .returning({ id: alerts.id });
  return rows.length;
}

export async function listInbox(db: Db, f: InboxFilter, now: Date): Promise<AlertRow[]> {
  const eff = effectiveStatus(now);
  const conds: SQL[] = [
    eq(alerts.projectId, f.projectId),
    sql`${eff} in (${sql.join(
      f.statuses.map((s) => sql`${s}`),
      sql`, `,
    )})`,
  ];
  if (f.type) conds.push(eq(alerts.type, f.type));
  if (f.severity) conds.push(eq(alerts.severity, f.severity));
  if (f.before)
    conds.push(
      sql`(${alerts.firedAt}, ${alerts.id}) < (${timestamptz(f.before.time)}, ${f.before.id})`,
    );
  return db
    .select()
    .from(alerts)
    .where(and(...conds))
    .orderBy(sql`${alerts.firedAt} desc, ${alerts.id} desc`)
    .limit(f.limit);
}

/** Unresolved alerts per effective status and severity. */
export async function countOpen(
  db: Db,
  projectId: string,
  now: Date,
): Promise<{ status: string; severity: string; n: number }[]> {
  const eff = effectiveStatus(now);
  const { rows } = await execute<{ status: string; severity: string; n: number | string }>(
    db,
    sql`select ${eff} as status, ${alerts.severity} as severity, count(*) as n from ${alerts}
        where ${alerts.projectId} = ${projectId} and ${alerts.status} <> 'resolved' group by 1, 2`,
  );
  return rows.map((r) => ({ status: r.status, severity: r.severity, n: Number(r.n) }));
}

export async function setDelivery(
  db: Db,
  id: string,
  delivery: Delivery,
  error: string | null,
  attempts: number,
): Promise<void> {
  await db
    .update(alerts)
    .set({ delivery, deliveryError: error, deliveryAttempts: attempts })
    .where(eq(alerts.id, id));
}

/** Snoozes that ended become firing rows again (the waker; reads already treat them so). */
export async function wakeSnoozed(db: Db, now: Date): Promise<number> {
  const rows = await db
    .update(alerts)
    .set({ status: 'firing', snoozedUntil: null })
    .where(and(eq(alerts.status, 'snoozed'), sql`${alerts.snoozedUntil} <= ${timestamptz(now)}`))
    .returning({ id: alerts.id });
  return rows.length;
}

/** Retention: resolved alerts and `forever` dedup keys older than the cutoff. */
export async function deleteOldAlerts(db: Db, cutoff: Date): Promise<number> {
  const gone = await db
    .delete(alerts)
    .where(and(eq(alerts.status, 'resolved'), sql`${alerts.resolvedAt} < ${timestamptz(cutoff)}`))
    .returning({ id: alerts.id });
  await db.delete(alertDedup).where(sql`${alertDedup.firedAt} < ${timestamptz(cutoff)}`);
  return gone.length;
}

export type AlertConfigRow = typeof alertConfigs.$inferSelect;

export async function findAlertConfig(
  db: Db,
  projectId: string,
): Promise<AlertConfigRow | undefined> {
  const rows = await db
    .select()
    .from(alertConfigs)
    .where(eq(alertConfigs.projectId, projectId))
    .limit(1);
  return rows[0];
}

export async function saveAlertConfig(db: Db, row: AlertConfigRow): Promise<void> {
  await db
    .insert(alertConfigs)
    .values(row)
    .onConflictDoUpdate({
      target: alertConfigs.projectId,
      set: { alertTypes: row.alertTypes, chatWebhook: row.chatWebhook, updatedAt: row.updatedAt },
    });
}
