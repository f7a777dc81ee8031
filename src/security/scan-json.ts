import type { StoredScan } from '../store/security-repo.ts';
import { OWASP_TITLES } from './types.ts';

/** A scan as REST and the CLI print it: docs/security.md#results-history-and-pins in snake_case plus project_id, id and where each finding was found. */
export function toScanJson(s: StoredScan): Record<string, unknown> {
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
