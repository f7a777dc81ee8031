import type { MinuteCount } from './queries.ts';

const MINUTE = 60_000;

/**
 * The series with one more span counted in its minute: a span in a newer minute than the last
 * moves the window forward (quiet minutes in between count 0); one older than the window is
 * ignored. Returns a new array (the caller's state), or the same one when nothing changed.
 */
export function bumpMinute(
  series: readonly MinuteCount[],
  span: { startedAt: string; status: string },
): readonly MinuteCount[] {
  const first = series[0];
  const last = series.at(-1);
  if (!first || !last) return series;
  const t = Math.floor(Date.parse(span.startedAt) / MINUTE) * MINUTE;
  if (Number.isNaN(t) || t < Date.parse(first.minute)) return series;
  const failed = span.status === 'error' || span.status === 'timeout';
  const out = [...series];
  for (let m = Date.parse(last.minute) + MINUTE; m <= t; m += MINUTE)
    out.push({ minute: new Date(m).toISOString(), spans: 0, errors: 0 });
  const drop = out.length - series.length;
  out.splice(0, drop);
  const i = out.findIndex((m) => Date.parse(m.minute) === t);
  const hit = out[i];
  if (!hit) return drop ? out : series;
  out[i] = { ...hit, spans: hit.spans + 1, errors: hit.errors + (failed ? 1 : 0) };
  return out;
}
