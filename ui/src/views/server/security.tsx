import { useState } from 'preact/hooks';
import { describeError, mutate, type ReadableError } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { param } from '../../router.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { FindingView, sevClass } from './security-finding.tsx';
import { RUN_SCAN, SCANS, type RunScanData, type ScansData } from './security-queries.ts';
import './tabs.css';

/**
 * The server page's security tab: the latest scan's findings (severity, evidence, remediation),
 * most severe first, and the scans before it. Evidence and descriptions quote the server's own
 * text, which may be a poisoning attempt: shown as text only. Admins can scan now.
 */
export function SecurityTab({ name }: { name: string }) {
  const projectId = param('project') || null;
  const q = useQuery<ScansData>(SCANS, { name, projectId });
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="security findings" />;
  const [latest, ...older] = q.data.securityScanHistory;
  return (
    <section class="server-security" aria-labelledby="security-h">
      <h2 id="security-h">Security</h2>
      {isAdmin() && <ScanNow name={name} projectId={projectId} done={q.refetch} />}
      {!latest ? (
        <p class="muted">Never scanned.</p>
      ) : (
        <>
          <p>
            Latest scan <Time value={latest.scannedAt} />:{' '}
            <strong>
              {latest.findingsCount} finding{latest.findingsCount === 1 ? '' : 's'}
            </strong>
            , highest severity{' '}
            <span class={sevClass(latest.highestSeverity)}>{latest.highestSeverity}</span>.
          </p>
          {latest.error && (
            <p class="scan-error">
              The server could not be observed: {latest.error}. Findings from its configuration are
              still listed.
            </p>
          )}
          <ol class="findings">
            {bySeverity(latest.findings).map((f, i) => (
              <FindingView key={`${i}:${f.rule}`} finding={f} />
            ))}
          </ol>
        </>
      )}
      {older.length > 0 && (
        <table class="data scan-history">
          <caption>Earlier scans</caption>
          <thead>
            <tr>
              <th scope="col">Scanned</th>
              <th scope="col">Highest</th>
              <th scope="col" class="num">
                Findings
              </th>
              <th scope="col" class="num">
                Critical
              </th>
              <th scope="col" class="num">
                High
              </th>
            </tr>
          </thead>
          <tbody>
            {older.map((s) => (
              <tr key={s.id}>
                <td>
                  <Time value={s.scannedAt} />
                </td>
                <td>
                  <span class={sevClass(s.highestSeverity)}>{s.highestSeverity}</span>
                </td>
                <td class="num">{s.findingsCount}</td>
                <td class="num">{s.criticalCount}</td>
                <td class="num">{s.highCount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** "Scan now" (admins): busy while the scan runs, then the result, or the server's error. */
function ScanNow(props: { name: string; projectId: string | null; done: () => void }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<ReadableError | null>(null);
  const run = async () => {
    setBusy(true);
    setResult(null);
    setError(null);
    try {
      const d = await mutate<RunScanData>(RUN_SCAN, {
        name: props.name,
        projectId: props.projectId,
      });
      const s = d.runSecurityScan[0];
      setResult(
        s
          ? `Scan done: ${s.findingsCount} finding${s.findingsCount === 1 ? '' : 's'}, highest ${s.highestSeverity}.`
          : 'Scan done.',
      );
      props.done();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="scan-now" aria-busy={busy}>
      <button disabled={busy} onClick={() => void run()}>
        {busy ? 'Scanning…' : 'Scan now'}
      </button>
      <span role="status">{busy ? 'Scanning the server…' : (result ?? '')}</span>
      {error && (
        <p role="alert" class="scan-error">
          {error.message} <code>{error.code}</code>
        </p>
      )}
    </div>
  );
}

const RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** Most severe first (the scan's order within one severity kept). */
function bySeverity<T extends { severity: string }>(findings: readonly T[]): T[] {
  return [...findings].sort(
    (a, b) => (RANK[a.severity.toLowerCase()] ?? 5) - (RANK[b.severity.toLowerCase()] ?? 5),
  );
}
