import { useState } from 'preact/hooks';
import { describeError, mutate } from '../../graphql/client.ts';
import { RUN_CHECKS, RUN_SCAN, type RunChecksData, type RunScanData } from './queries.ts';

export type Action = 'check' | 'scan';
/** The key of a run over every configured server. */
export const ALL = '*';

export interface Actions {
  /** What is running, by server name (ALL for the whole list). */
  busy: Record<string, Action>;
  /** The last outcome, by server name (ALL for the whole list), as a sentence. */
  results: Record<string, { text: string; failed: boolean }>;
  run(action: Action, serverName?: string): Promise<void>;
}

/**
 * "Check now" and "scan now" (runHealthChecks, runSecurityScan; admins only, the server refuses
 * others): each run marks its row (or the whole list) busy until the server answers, then records
 * a one-line result and calls `done` so the list shows the new state.
 */
export function useActions(projectId: string | null, done: () => void): Actions {
  const [busy, setBusy] = useState<Record<string, Action>>({});
  const [results, setResults] = useState<Actions['results']>({});
  const run = async (action: Action, serverName?: string) => {
    const k = serverName ?? ALL;
    setBusy((b) => ({ ...b, [k]: action }));
    const vars = { projectId, serverName: serverName ?? null };
    let outcome: { text: string; failed: boolean };
    try {
      outcome =
        action === 'check'
          ? checked((await mutate<RunChecksData>(RUN_CHECKS, vars)).runHealthChecks)
          : scanned((await mutate<RunScanData>(RUN_SCAN, vars)).runSecurityScan);
    } catch (err) {
      const e = describeError(err);
      outcome = {
        text: `${action === 'check' ? 'Check' : 'Scan'} failed: ${e.message}`,
        failed: true,
      };
    }
    setResults((r) => ({ ...r, [k]: outcome }));
    setBusy((b) => {
      const next = { ...b };
      delete next[k];
      return next;
    });
    done();
  };
  return { busy, results, run };
}

function checked(list: RunChecksData['runHealthChecks']) {
  if (list.length === 1) {
    const r = list[0]!;
    const ms = r.latencyMs === null ? '' : ` in ${Math.round(r.latencyMs)} ms`;
    return {
      text: `Checked: ${r.status}${ms}${r.error ? ` (${r.error})` : ''}`,
      failed: r.status === 'down',
    };
  }
  const down = list.filter((r) => r.status === 'down').length;
  return { text: `Checked ${list.length} servers: ${down} down`, failed: down > 0 };
}

function scanned(list: RunScanData['runSecurityScan']) {
  if (list.length === 1) {
    const s = list[0]!;
    return {
      text: `Scanned: ${s.findingsCount} findings, highest ${s.highestSeverity}${s.error ? ` (${s.error})` : ''}`,
      failed: s.highestSeverity === 'critical' || s.highestSeverity === 'high',
    };
  }
  const findings = list.reduce((a, s) => a + s.findingsCount, 0);
  return { text: `Scanned ${list.length} servers: ${findings} findings`, failed: false };
}
