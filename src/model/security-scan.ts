/**
 * Security scans as services return them (docs/security.md#results-history-and-pins): a stored scan
 * run with its findings, and the JSON the API and `spyglass scan --json` print.
 */

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
/** What a finding counts as in the scorecard (docs/scorecards.md#dimensions); see store/schema-security.ts. */
export type FindingKind = 'cve' | 'poisoning' | 'no_auth' | 'owasp' | 'other';

export interface NewFinding {
  severity: Severity;
  category: string;
  rule: string;
  kind: FindingKind;
  title: string;
  description: string;
  remediation: string;
  toolName?: string | null;
  cveId?: string | null;
}

/** A finding as stored: where it was found and what matched (src/security/types.ts Finding). */
export interface ScanFinding extends NewFinding {
  location?: string | null;
  evidence?: string | null;
}

/** A finding read back: every optional field present (null when absent). */
export type StoredFinding = ScanFinding & {
  location: string | null;
  evidence: string | null;
  toolName: string | null;
  cveId: string | null;
};

/** A stored scan run with its findings in the order the checks reported them. */
export interface StoredScan {
  id: string;
  projectId: string;
  serverName: string;
  scannedAt: Date;
  error: string | null;
  findingsCount: number;
  criticalCount: number;
  highCount: number;
  /** critical|high|medium|low|info, or 'none'. */
  highestSeverity: string;
  findings: StoredFinding[];
}

/** One server of one project: what batched reads (scorecards, latest scans) are keyed by. */
export interface ServerKey {
  projectId: string;
  serverName: string;
}

/** OWASP MCP Top 10 (v0.1 beta, "2025" edition) titles, cited by id (docs/security.md). */
export const OWASP_TITLES: Readonly<Record<string, string>> = {
  'OWASP-MCP-01': 'Token Mismanagement & Secret Exposure',
  'OWASP-MCP-02': 'Privilege Escalation via Scope Creep',
  'OWASP-MCP-03': 'Tool Poisoning',
  'OWASP-MCP-04': 'Software Supply Chain Attacks & Dependency Tampering',
  'OWASP-MCP-05': 'Command Injection & Execution',
  'OWASP-MCP-06': 'Intent Flow Subversion',
  'OWASP-MCP-07': 'Insufficient Authentication & Authorization',
  'OWASP-MCP-08': 'Lack of Audit and Telemetry',
  'OWASP-MCP-09': 'Shadow MCP Servers',
  'OWASP-MCP-10': 'Context Injection & Over-Sharing',
};

/** A scan as REST and the CLI print it: snake_case plus project_id, id and where each finding was found. */
export function toScanJson(s: StoredScan) {
  return {
    id: s.id,
    project_id: s.projectId,
    server_name: s.serverName,
    scanned_at: s.scannedAt.toISOString(),
    error: s.error,
    findings_count: s.findingsCount,
    critical_count: s.criticalCount,
    high_count: s.highCount,
    highest_severity: s.highestSeverity,
    findings: s.findings.map((f) => ({
      severity: f.severity,
      category: f.category,
      owasp_title: OWASP_TITLES[f.category] ?? null,
      rule: f.rule,
      kind: f.kind,
      title: f.title,
      description: f.description,
      remediation: f.remediation,
      tool_name: f.toolName,
      cve_id: f.cveId,
      location: f.location,
      evidence: f.evidence,
    })),
  };
}
