import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Security scans (docs/security.md), written by the scanner (src/security/) and read by the
 * scorecard (the latest scan per server, docs/scorecards.md#dimensions). Retained 90 days like health results.
 *
 * security_scans: one row per scan run per server. `error` is set when the scan could not run (the
 * server was down, the config was unreadable); the scorecard still reads its findings. The counts
 * and highest_severity are the scan result of docs/security.md#results-history-and-pins, stored so lists need no aggregate.
 *
 * security_findings: the findings of one scan. `severity` critical|high|medium|low|info;
 * `category` `OWASP-MCP-<nn>` or another family (e.g. `CVE`); `rule` the scanner's stable rule id
 * (`secrets.env`, `poisoning.hidden-instructions`, `cve.osv`...). `kind` tells the scorecard what a
 * finding counts as (docs/scorecards.md#dimensions deductions and caps):
 *   cve        a known vulnerability (cve_id set); critical caps the grade at F
 *   poisoning  confirmed tool poisoning (deduction 25, caps at F); a pattern the scanner is not sure
 *              of is an `owasp` finding with its own severity instead
 *   no_auth    the server has no authentication (deduction 10, caps at C; not counted by severity)
 *   owasp      any other OWASP MCP check
 *   other      anything else (counted by severity)
 */
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const securityScans = pgTable(
  'security_scans',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    scannedAt: ts('scanned_at').notNull(),
    error: text('error'),
    findingsCount: integer('findings_count').notNull(),
    criticalCount: integer('critical_count').notNull(),
    highCount: integer('high_count').notNull(),
    /** critical|high|medium|low|info, or 'none' without findings. */
    highestSeverity: text('highest_severity').notNull(),
  },
  (t) => [
    index('security_scans_server_time_idx').on(t.projectId, t.serverName, t.scannedAt),
    index('security_scans_time_idx').on(t.scannedAt),
  ],
);

export const securityFindings = pgTable(
  'security_findings',
  {
    scanId: text('scan_id')
      .notNull()
      .references(() => securityScans.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    severity: text('severity').notNull(),
    category: text('category').notNull(),
    rule: text('rule').notNull(),
    kind: text('kind').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    remediation: text('remediation').notNull(),
    toolName: text('tool_name'),
    cveId: text('cve_id'),
    /** Where in the server's surface (`env.OPENAI_API_KEY`, `tools.x.description`...); see src/security/types.ts. */
    location: text('location'),
    /** A short excerpt of what matched, secrets masked. */
    evidence: text('evidence'),
  },
  (t) => [primaryKey({ columns: [t.scanId, t.seq] })],
);

/**
 * Trust-on-first-use pins (docs/security.md#pinning-trust-on-first-use): per server, one row per tool plus one row with
 * tool_name '' for the server itself (instructions and serverInfo in `definition`). A scan compares
 * against these, not against the previous check; rows change only when a tool is first seen or an
 * operator re-pins. Not retained by age: a pin outlives the scans that made it.
 */
export const securityPins = pgTable(
  'security_pins',
  {
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    hash: text('hash').notNull(),
    definition: jsonb('definition').notNull(),
    pinnedAt: ts('pinned_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.serverName, t.toolName] })],
);
