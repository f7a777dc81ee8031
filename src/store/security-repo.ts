import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { execute, timestamptz, type Db } from './db.ts';
import { fromPg, fromPgText, pgText, toPg } from './pg-text.ts';
import { securityFindings, securityScans } from './schema-security.ts';
import type {
  FindingKind,
  ScanFinding,
  ServerKey,
  Severity,
  StoredScan,
} from '../model/security-scan.ts';

/** The SQL of security scans: storing a scan with its findings, reading them back, retention (schema-security.ts). Pins: security-pins-repo.ts. */

export type {
  FindingKind,
  NewFinding,
  ScanFinding,
  ServerKey,
  Severity,
  StoredScan,
} from '../model/security-scan.ts';

export interface NewScan {
  id: string;
  projectId: string;
  serverName: string;
  scannedAt: Date;
  error?: string | null;
  findings: ScanFinding[];
}

const RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };

/**
 * Stores one scan run and its findings in one transaction; the counts of docs/security.md#results-history-and-pins are derived here.
 * Findings quote what a server sent (tool names, descriptions): pg-text.ts stores them escaped.
 */
export async function insertScan(db: Db, scan: NewScan): Promise<StoredScan> {
  const stored = summarise(scan);
  await db.transaction(async (tx) => {
    const { findings, ...row } = stored;
    await tx
      .insert(securityScans)
      .values({ ...row, error: row.error === null ? null : pgText(row.error) });
    if (findings.length === 0) return;
    await tx
      .insert(securityFindings)
      .values(findings.map((x, seq) => ({ ...toPg(x), scanId: scan.id, seq })));
  });
  return stored;
}

function summarise(scan: NewScan): StoredScan {
  const f = scan.findings;
  const highest = f.reduce<Severity | null>(
    (h, x) => (h === null || RANK[x.severity] > RANK[h] ? x.severity : h),
    null,
  );
  return {
    id: scan.id,
    projectId: scan.projectId,
    serverName: scan.serverName,
    scannedAt: scan.scannedAt,
    error: scan.error ?? null,
    findingsCount: f.length,
    criticalCount: f.filter((x) => x.severity === 'critical').length,
    highCount: f.filter((x) => x.severity === 'high').length,
    highestSeverity: highest ?? 'none',
    findings: f.map((x) => ({
      severity: x.severity,
      category: x.category,
      rule: x.rule,
      kind: x.kind,
      title: x.title,
      description: x.description,
      remediation: x.remediation,
      toolName: x.toolName ?? null,
      cveId: x.cveId ?? null,
      location: x.location ?? null,
      evidence: x.evidence ?? null,
    })),
  };
}

/** Removes scans older than `cutoff` (their findings go with them). */
export async function deleteScansBefore(db: Db, cutoff: Date): Promise<number> {
  const rows = await db
    .delete(securityScans)
    .where(lt(securityScans.scannedAt, cutoff))
    .returning({ id: securityScans.id });
  return rows.length;
}

/** The newest scan of one server; projectId null = every project (an unscoped admin key). */
export async function latestScan(
  db: Db,
  projectId: string | null,
  serverName: string,
): Promise<StoredScan | null> {
  const [scan] = await scanHistory(db, projectId, serverName, 1, 0);
  return scan ?? null;
}

/** Scans of one server, newest first, with their findings; two queries whatever the page size. */
export async function scanHistory(
  db: Db,
  projectId: string | null,
  serverName: string,
  limit: number,
  offset: number,
): Promise<StoredScan[]> {
  const rows = await db
    .select()
    .from(securityScans)
    .where(
      and(
        projectId === null ? undefined : eq(securityScans.projectId, projectId),
        eq(securityScans.serverName, serverName),
      ),
    )
    .orderBy(desc(securityScans.scannedAt), desc(securityScans.id))
    .limit(limit)
    .offset(offset);
  return withFindings(db, rows);
}

/** The newest scan of each server asked for (GraphQL batches these per request). */
export async function latestScans(db: Db, keys: readonly ServerKey[]): Promise<StoredScan[]> {
  if (keys.length === 0) return [];
  const json = JSON.stringify(
    keys.map((k) => ({ project_id: k.projectId, server_name: k.serverName })),
  );
  const { rows } = await execute<{ id: string }>(
    db,
    sql`select s.id from json_to_recordset(${json}::json) as k(project_id text, server_name text)
        cross join lateral (
          select id from security_scans x where x.project_id = k.project_id and x.server_name = k.server_name
          order by x.scanned_at desc, x.id desc limit 1
        ) s`,
  );
  if (rows.length === 0) return [];
  const scans = await db
    .select()
    .from(securityScans)
    .where(
      inArray(
        securityScans.id,
        rows.map((r) => r.id),
      ),
    );
  return withFindings(db, scans);
}

async function withFindings(
  db: Db,
  scans: (typeof securityScans.$inferSelect)[],
): Promise<StoredScan[]> {
  if (scans.length === 0) return [];
  const found = await db
    .select()
    .from(securityFindings)
    .where(
      inArray(
        securityFindings.scanId,
        scans.map((s) => s.id),
      ),
    )
    .orderBy(asc(securityFindings.scanId), asc(securityFindings.seq));
  const byScan = new Map<string, StoredScan['findings']>();
  for (const f of found) {
    const list = byScan.get(f.scanId) ?? [];
    list.push(
      fromPg({
        severity: f.severity as Severity,
        category: f.category,
        rule: f.rule,
        kind: f.kind as FindingKind,
        title: f.title,
        description: f.description,
        remediation: f.remediation,
        toolName: f.toolName,
        cveId: f.cveId,
        location: f.location,
        evidence: f.evidence,
      }),
    );
    byScan.set(f.scanId, list);
  }
  return scans.map((s) => ({
    id: s.id,
    projectId: s.projectId,
    serverName: s.serverName,
    scannedAt: s.scannedAt,
    error: s.error === null ? null : fromPgText(s.error),
    findingsCount: s.findingsCount,
    criticalCount: s.criticalCount,
    highCount: s.highCount,
    highestSeverity: s.highestSeverity,
    findings: byScan.get(s.id) ?? [],
  }));
}

/** What the scorecard reads of a server's latest scan (docs/scorecards.md#dimensions). */
export interface ScanSummary extends ServerKey {
  scanId: string;
  scannedAt: Date;
  /** Findings counted by severity, except poisoning and no_auth findings, which count on their own. */
  critical: number;
  high: number;
  medium: number;
  low: number;
  criticalCves: number;
  poisoning: number;
  noAuth: number;
}

/** The latest scan at or before `now` of each server asked for, with its findings aggregated in SQL. */
export async function latestScanSummaries(
  db: Db,
  keys: readonly ServerKey[],
  now: Date,
): Promise<ScanSummary[]> {
  if (keys.length === 0) return [];
  const json = JSON.stringify(
    keys.map((k) => ({ project_id: k.projectId, server_name: k.serverName })),
  );
  const { rows } = await execute<Record<string, unknown>>(
    db,
    sql`select k.project_id, k.server_name, s.id, s.scanned_at, f.*
        from json_to_recordset(${json}::json) as k(project_id text, server_name text)
        cross join lateral (
          select id, scanned_at from security_scans x
          where x.project_id = k.project_id and x.server_name = k.server_name and x.scanned_at <= ${timestamptz(now)}
          order by x.scanned_at desc limit 1
        ) s
        cross join lateral (
          select count(*) filter (where kind not in ('poisoning', 'no_auth') and severity = 'critical')::int as critical,
                 count(*) filter (where kind not in ('poisoning', 'no_auth') and severity = 'high')::int as high,
                 count(*) filter (where kind not in ('poisoning', 'no_auth') and severity = 'medium')::int as medium,
                 count(*) filter (where kind not in ('poisoning', 'no_auth') and severity = 'low')::int as low,
                 count(*) filter (where kind = 'cve' and severity = 'critical')::int as critical_cves,
                 count(*) filter (where kind = 'poisoning')::int as poisoning,
                 count(*) filter (where kind = 'no_auth')::int as no_auth
          from security_findings where scan_id = s.id
        ) f`,
  );
  return rows.map((r) => ({
    projectId: String(r.project_id),
    serverName: String(r.server_name),
    scanId: String(r.id),
    scannedAt: r.scanned_at instanceof Date ? r.scanned_at : new Date(String(r.scanned_at)),
    critical: Number(r.critical),
    high: Number(r.high),
    medium: Number(r.medium),
    low: Number(r.low),
    criticalCves: Number(r.critical_cves),
    poisoning: Number(r.poisoning),
    noAuth: Number(r.no_auth),
  }));
}
