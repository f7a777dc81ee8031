import { utc } from './prefs.ts';

/** A timestamp in local time, or UTC when the header's toggle says so; the exact ISO on hover. */
export function formatTime(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return String(iso);
  if (utc.value) return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

export function Time({ value }: { value: string | Date }) {
  const d = typeof value === 'string' ? new Date(value) : value;
  return (
    <time dateTime={d.toISOString()} title={d.toISOString()}>
      {formatTime(d)}
    </time>
  );
}
