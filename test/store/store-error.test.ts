import { describe, expect, it } from 'vitest';
import { databaseReason, internalErrorText, storeErrorText } from '../../src/store/store-error.ts';

/** A driver error as drizzle wraps it: the statement and its parameters in the message. */
function failedQuery(sql: string, params: string, driver: { message: string; code: string }) {
  return new Error(`Failed query: ${sql}\nparams: ${params}`, {
    cause: Object.assign(new Error(driver.message), { code: driver.code }),
  });
}

/** What may be said of a failed statement outside the log: its SQLSTATE, never its SQL or parameters. */
describe('storeErrorText', () => {
  it('keeps only the SQLSTATE of a drizzle-wrapped driver error', () => {
    const wrapped = failedQuery(
      'insert into "tool_schemas" ("hash", "tools") values ($1, $2)',
      'abc,[{"name":"x"}]',
      { message: 'unsupported Unicode escape sequence', code: '22P05' },
    );
    expect(storeErrorText(wrapped)).toBe('database error (SQLSTATE 22P05)');
    expect(internalErrorText(wrapped)).toBe(
      'database error (SQLSTATE 22P05); details are in the server log',
    );
    expect(storeErrorText(new Error('Failed query: select 1\nparams: '))).toBe('database error');
  });

  it("is null for errors that are not the database's (an errno code is not a SQLSTATE)", () => {
    expect(storeErrorText(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBeNull();
    expect(internalErrorText(new Error('boom'))).toBe(
      'internal error; details are in the server log',
    );
  });
});

/** What the log says of a database that could not answer (a 503, a retried commit). */
describe('databaseReason', () => {
  it("gives the driver's code and message, not drizzle's statement and parameters", () => {
    const wrapped = failedQuery('select * from "spans" where "session_id" = $1', 'secret-session', {
      message: 'terminating connection due to administrator command',
      code: '57P01',
    });
    expect(databaseReason(wrapped)).toEqual({
      message: 'terminating connection due to administrator command',
      code: '57P01',
    });
    expect(JSON.stringify(databaseReason(wrapped))).not.toContain('secret-session');
    expect(databaseReason(new Error('timed out after 2000 ms'))).toEqual({
      message: 'timed out after 2000 ms',
    });
  });
});
