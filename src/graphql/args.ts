import { describeRange } from '../model/int-range.ts';
import { WINDOW_HOURS } from '../traces/query-params.ts';

/** GraphQL's "not given" is null or absent; services take absent (undefined) only. */
export type WithoutNulls<T> = { [K in keyof T]: Exclude<T[K], null> };

/** The arguments with every null left out, typed as such. */
export function withoutNulls<T extends object>(args: T | null | undefined): WithoutNulls<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args ?? {})) if (v !== null) out[k] = v;
  return out as WithoutNulls<T>;
}

/** The `hours` argument of a read window, described from the rule SessionsService checks. */
export const WINDOW_HOURS_DESCRIPTION = `Look back this many hours (${describeRange(WINDOW_HOURS)}) when since is not given`;
