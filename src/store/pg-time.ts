import type { Sql } from 'postgres';

/**
 * PostgreSQL's text for a timestamp (DateStyle ISO, its default): `0001-01-01 00:00:00.123456+00`,
 * `+05:30` or `+00:53:28` offsets (TimeZone), ` BC` for years before 1, more than four digits
 * after 9999. drizzle reads it with `new Date(text)`, whose legacy parser takes years 0-99 for
 * 1900-1999 or 2000-2049 (the year 1 read back as 2001) and refuses BC; ingest admits years from 1
 * (normalize/span-checks.ts), so the store reads the text itself (docs/ingest.md#times-read-back).
 */
const PG_TIME =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?( BC)?$/;

/** The common case (a four-digit year, an offset of hours or hours and minutes): ISO 8601 but for two characters. */
const ISO_LIKE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?[+-]\d\d(?::\d\d)?$/;

/** The latest (and, negated, earliest) time a Date holds: 275760-09-13 (ECMA-262's time value). */
const DATE_LIMIT_MS = 8.64e15;

/**
 * The instant a timestamptz (or, read as UTC, a timestamp) text stands for. Microseconds past the
 * millisecond are dropped, as Date cannot hold them (spans keep them in columns of their own).
 * `infinity`, `-infinity` and times beyond Date's range (PostgreSQL goes to 294276) read as the
 * nearest time a Date holds; text of another DateStyle falls back to `new Date(text)`.
 */
export function parsePgTimestamp(text: string): Date {
  if (text === 'infinity') return new Date(DATE_LIMIT_MS);
  if (text === '-infinity') return new Date(-DATE_LIMIT_MS);
  // Years 1000-9999 with an offset of hours or hours and minutes (all but a few texts): Date's own
  // reading, as drizzle read them, is right and the fastest. Years 0-999, BC, five-digit years
  // and offsets with seconds (local mean time) need more.
  if (text.charCodeAt(4) === 0x2d && text.charCodeAt(0) !== 0x30 && hourMinuteOffset(text))
    return new Date(text);
  // Made ISO 8601, which Date reads by the standard's rules (no legacy years), three times faster
  // than the general path below.
  if (ISO_LIKE.test(text)) {
    const minutes = text.charCodeAt(text.length - 3) === 0x3a ? '' : ':00';
    return new Date(`${text.slice(0, 10)}T${text.slice(11)}${minutes}`);
  }
  const m = PG_TIME.exec(text);
  if (!m) return new Date(text);
  const [, y, mon, d, h, min, s, frac = '', sign, oh = '0', om = '0', os = '0', bc] = m;
  // Astronomical years: 1 BC is year 0. setUTCFullYear, unlike Date.UTC, takes years 0-99 as given.
  const year = bc ? 1 - Number(y) : Number(y);
  const day = new Date(0).setUTCFullYear(year, Number(mon) - 1, Number(d));
  if (Number.isNaN(day)) return new Date(year > 0 ? DATE_LIMIT_MS : -DATE_LIMIT_MS);
  const offsetS = (Number(oh) * 60 + Number(om)) * 60 + Number(os);
  const t =
    day +
    ((Number(h) * 60 + Number(min)) * 60 + Number(s) - (sign === '-' ? -offsetS : offsetS)) * 1000 +
    Number(frac.padEnd(3, '0').slice(0, 3));
  return new Date(Math.min(DATE_LIMIT_MS, Math.max(-DATE_LIMIT_MS, t)));
}

const isSign = (c: number) => c === 0x2b || c === 0x2d;
/** Ends in `+HH` or `+HH:MM` (so no ` BC` either). */
const hourMinuteOffset = (t: string) =>
  isSign(t.charCodeAt(t.length - 3)) ||
  (isSign(t.charCodeAt(t.length - 6)) && t.charCodeAt(t.length - 3) === 0x3a);

/** postgres.js type ids: timestamp, timestamptz. */
const TIMESTAMP_TYPES = [1114, 1184];

/**
 * Makes a postgres.js client read timestamps with parsePgTimestamp, as Dates. Call it after every
 * drizzle(client): drizzle's constructor sets these types to pass the text through (for its own
 * `new Date(text)`, which leaves a Date as it is), so a later drizzle() undoes this.
 */
export function readTimesExactly(client: Sql): void {
  for (const type of TIMESTAMP_TYPES) client.options.parsers[type] = parsePgTimestamp;
}
