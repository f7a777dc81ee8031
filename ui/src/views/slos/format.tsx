/** How the SLO page words metrics, values and statuses (docs/slos.md#what-is-measured). */

export const METRIC_LABEL: Record<string, string> = {
  success_rate: 'success rate',
  latency_p99: 'p99 session duration',
};

/** A success rate as a percentage, a p99 in milliseconds; a dash without data. */
export function formatValue(metric: string, v: number | null): string {
  if (v === null) return '—';
  return metric === 'latency_p99' ? `${+v.toFixed(1)} ms` : `${+v.toFixed(2)}%`;
}

const STATUS_LABEL: Record<string, string> = {
  ok: 'met',
  breached: 'breached',
  no_data: 'no data',
};

export function StatusTag({ status }: { status: string }) {
  return <span class={`tag slo-${status}`}>{STATUS_LABEL[status] ?? status}</span>;
}
