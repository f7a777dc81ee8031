import type { ValidationIssue } from '../errors.ts';
import { isoMicros, subMillisecondMicros } from '../model/span.ts';

/** Opaque keyset cursor over (timestamp, id), newest first; `micros` below the millisecond (spans). */
export function encodeCursor(time: Date, id: string, micros?: number): string {
  return Buffer.from(`${isoMicros(time, micros)}|${id}`).toString('base64url');
}

export function decodeCursor(
  raw: string,
  issues: ValidationIssue[],
): { time: Date; id: string; micros: number } | undefined {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const sep = text.indexOf('|');
  const ms = sep > 0 ? Date.parse(text.slice(0, sep)) : Number.NaN;
  if (Number.isNaN(ms)) {
    issues.push({ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' });
    return undefined;
  }
  return {
    time: new Date(ms),
    id: text.slice(sep + 1),
    micros: subMillisecondMicros(text.slice(0, sep)),
  };
}
