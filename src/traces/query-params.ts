import type { ValidationIssue } from '../errors.ts';
import { checkInt, type IntRange } from '../model/int-range.ts';
import { parseUtc } from '../normalize/native.ts';

/*
 * Checks of query values shared by every read: problems are collected as 422 issues
 * (`loc: ["query", name]`) so a request learns about all of them at once. Whole numbers are
 * checked by `checkInt` (model/int-range.ts) against the range their service exports.
 */

/** A time an adapter parsed: an invalid Date (what it makes of unreadable text) is a 422 naming the field. */
export function checkTime(
  name: string,
  value: Date | undefined,
  issues: ValidationIssue[],
): Date | undefined {
  if (value === undefined || !Number.isNaN(value.getTime())) return value;
  issues.push({
    loc: ['query', name],
    msg: 'Input should be an ISO 8601 datetime',
    type: 'datetime_parsing',
  });
  return undefined;
}

/** An optional value out of a fixed set: anything else is a 422 naming the allowed values. */
export function parseEnumParam<T extends string>(
  name: string,
  raw: string | undefined,
  allowed: readonly T[],
  issues: ValidationIssue[],
): T | undefined {
  if (raw === undefined || raw === '') return undefined;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  issues.push({
    loc: ['query', name],
    msg: `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`,
    type: 'enum',
  });
  return undefined;
}

/** The look-back `hours` of a read window (LangSight's parameter): 30 days at most, a day by default. */
export const WINDOW_HOURS: IntRange = { min: 1, max: 720, default: 24 };

/**
 * The start of a read window: `since` if given, else `hours` (WINDOW_HOURS) before `end`.
 */
export function windowStart(
  q: { since?: Date | undefined; hours?: number | null | undefined },
  end: Date,
  issues: ValidationIssue[],
): Date {
  const hours = checkInt('hours', q.hours, WINDOW_HOURS, issues);
  return checkTime('since', q.since, issues) ?? new Date(end.getTime() - hours * 3600 * 1000);
}

/**
 * A whole number from text, for adapters: decimal digits only (`1e19`, `0x10` or ` 5` are not what
 * a client meant by an integer); anything else is NaN, which `checkInt` (model/int-range.ts) refuses.
 */
export function intFromText(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  return /^-?\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
}

/** A time from ISO 8601 text (no zone: UTC); unreadable text is an invalid Date, which checkTime refuses. */
export function timeFromText(raw: string | undefined): Date | undefined {
  if (raw === undefined || raw === '') return undefined;
  return new Date(parseUtc(raw));
}
