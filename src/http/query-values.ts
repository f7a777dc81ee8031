/**
 * Query values the route schemas type as text and the services check as domain values: a time,
 * a whole number. Unreadable text becomes an invalid Date or NaN, which the service answers with
 * the 422 clients know (`Input should be an integer from 1 to 720`, `loc: ["query", "hours"]`);
 * ajv's own messages would read differently.
 */
export { intFromText as queryInt, timeFromText as queryTime } from '../traces/query-params.ts';

/** `''` is "not given", as the routes always read it. */
export const queryString = (raw: string | undefined): string | undefined =>
  raw === '' ? undefined : raw;
