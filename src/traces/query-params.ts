import type { ValidationIssue } from '../errors.ts';
import { parseUtc } from '../normalize/native.ts';

/**
 * Query-parameter parsing shared by every read: problems are collected as 422 issues
 * (`loc: ["query", name]`) so a request learns about all of them at once.
 */
export function parseIntParam(
  name: string,
  raw: string | number | undefined,
  fallback: number,
  min: number,
  max: number,
  issues: ValidationIssue[],
): number {
  if (raw === undefined || raw === '') return fallback;
  // Plain decimal digits only: `1e19`, `0x10` or ` 5` are not what a client meant by an integer.
  const n = typeof raw === 'number' || /^-?\d{1,16}$/.test(String(raw)) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    issues.push({
      loc: ['query', name],
      msg: `Input should be an integer from ${min} to ${max}`,
      type: 'int_range',
    });
    return fallback;
  }
  return n;
}

export function parseLimit(
  raw: string | number | undefined,
  fallback: number,
  max: number,
  issues: ValidationIssue[],
): number {
  return parseIntParam('limit', raw, fallback, 1, max, issues);
}

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

/** The longest look-back `hours` may ask for (30 days). */
export const MAX_WINDOW_HOURS = 720;

/**
 * The start of a read window: `since` if given, else `hours` (1-720, LangSight's parameter) before
 * `end`, else `fallbackHours` before it.
 */
export function windowStart(
  q: { since?: Date | undefined; hours?: number | undefined },
  end: Date,
  fallbackHours: number,
  issues: ValidationIssue[],
): Date {
  const hours = parseIntParam('hours', q.hours, fallbackHours, 1, MAX_WINDOW_HOURS, issues);
  return checkTime('since', q.since, issues) ?? new Date(end.getTime() - hours * 3600 * 1000);
}

/**
 * A whole number from text, for adapters: decimal digits only (`1e19`, `0x10` or ` 5` are not what
 * a client meant by an integer); anything else is NaN, which the range checks above refuse.
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
