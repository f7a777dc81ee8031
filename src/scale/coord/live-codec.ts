import type { LiveEvent } from '../../model/live-event.ts';

/**
 * The one serialisation of live events between instances (the Redis stream of live-relay.ts): the
 * domain events as JSON, their `Date`s as ISO 8601 strings (sub-millisecond digits travel in the
 * spans' `…Micros` numbers), revived on receipt, so an event arrives equal to the one published.
 */
export function encodeLiveEvents(events: readonly LiveEvent[]): string {
  return JSON.stringify(events);
}

/** The `Date` fields of each event type's data. */
const DATES: { readonly [T in LiveEvent['type']]: readonly string[] } = {
  'span:new': ['startedAt', 'endedAt'],
  'health:check': [],
  'alert:fired': ['firedAt', 'acknowledgedAt', 'resolvedAt', 'snoozedUntil'],
  'security:scan': ['scannedAt'],
};

/**
 * The events of `encodeLiveEvents`' text, in order; null in the place of one this version cannot
 * read (a type it does not know), so the places (the events' ids) stay as they were sent.
 */
export function decodeLiveEvents(json: string): (LiveEvent | null)[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) return [];
  return parsed.map((e: { type?: unknown; data?: unknown } | null) => {
    const type = typeof e?.type === 'string' ? e.type : '';
    const dates = Object.hasOwn(DATES, type) ? DATES[type as LiveEvent['type']] : undefined;
    if (!dates || typeof e?.data !== 'object' || e.data === null) return null;
    const data = e.data as Record<string, unknown>;
    for (const key of dates) {
      const v = data[key];
      if (typeof v === 'string') data[key] = new Date(v);
    }
    return e as LiveEvent;
  });
}
