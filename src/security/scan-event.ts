import type { SecurityScanEvent } from '../model/live-event.ts';
import type { StoredScan } from '../store/security-repo.ts';

/**
 * The bus events of one scan run (docs/security.md#alerts-and-events security_critical / security_high): one per project
 * whose scans in the run found something critical or high, however many findings; none otherwise.
 */
export function scanRunEvents(scans: readonly StoredScan[]): SecurityScanEvent[] {
  const byProject = new Map<string, StoredScan[]>();
  for (const s of scans)
    if (s.criticalCount + s.highCount > 0)
      byProject.set(s.projectId, [...(byProject.get(s.projectId) ?? []), s]);
  return [...byProject].map(([projectId, hits]) => {
    const critical = hits.reduce((n, s) => n + s.criticalCount, 0);
    return {
      type: 'security:scan',
      data: {
        projectId,
        servers: hits.map((s) => s.serverName),
        criticalCount: critical,
        highCount: hits.reduce((n, s) => n + s.highCount, 0),
        highestSeverity: critical > 0 ? 'critical' : 'high',
        scannedAt: hits.reduce((t, s) => (s.scannedAt > t ? s.scannedAt : t), new Date(0)),
      },
    };
  });
}
