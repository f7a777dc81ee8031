import { SpyglassError, type ValidationIssue } from '../errors.ts';

/**
 * A whole-number input of a service operation (a page size, a look-back in hours): its bounds and
 * its value when none is given. The service that owns the operation exports it and checks it with
 * `checkInt`, once for every adapter; a REST route schema or a GraphQL argument only describes it
 * (`describeRange`), so the bound is written once and REST and GraphQL refuse the same value alike.
 */
export interface IntRange {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/** "1 to 100; default 10": the description REST schemas and GraphQL arguments give the input. */
export const describeRange = (r: IntRange): string => `${r.min} to ${r.max}; default ${r.default}`;

/**
 * `value`, or the range's default when none was given; anything else (a fraction, NaN from text
 * an adapter could not read, a value out of range) adds docs/api.md's 422 issue
 * `{"loc": ["query", name], "msg": "Input should be an integer from 1 to 100", "type": "int_range"}`
 * (`["body", name]` for a field of a body)
 * and returns the default, so a caller collects every problem before `throwIssues`.
 */
export function checkInt(
  name: string,
  value: number | null | undefined,
  range: IntRange,
  issues: ValidationIssue[],
  place: 'query' | 'body' = 'query',
): number {
  if (value === undefined || value === null) return range.default;
  if (Number.isSafeInteger(value) && value >= range.min && value <= range.max) return value;
  issues.push({
    loc: [place, name],
    msg: `Input should be an integer from ${range.min} to ${range.max}`,
    type: 'int_range',
  });
  return range.default;
}

/** One validation error (422; GraphQL `VALIDATION`) carrying every issue, if there are any. */
export function throwIssues(issues: ValidationIssue[]): void {
  if (issues.length === 0) return;
  // "limit must be an integer from 1 to 100; hours must be ...": the issues as one sentence.
  const message = issues
    .map((i) => `${String(i.loc.at(-1))} ${i.msg.replace(/^Input should be\b/, 'must be')}`)
    .join('; ');
  throw new SpyglassError('validation', message, { issues });
}

/** `checkInt` of one value, thrown at once: for an operation with a single number to check. */
export function intInRange(
  name: string,
  value: number | null | undefined,
  range: IntRange,
): number {
  const issues: ValidationIssue[] = [];
  const v = checkInt(name, value, range, issues);
  throwIssues(issues);
  return v;
}
