import { describe, expect, it } from 'vitest';
import { internalErrorText, storeErrorText } from '../../src/store/store-error.ts';

/** What may be said of a failed statement outside the log: its SQLSTATE, never its SQL or parameters. */
describe('storeErrorText', () => {
  it('keeps only the SQLSTATE of a drizzle-wrapped driver error', () => {
    const driver = Object.assign(new Error('unsupported Unicode escape sequence'), {
      code: '22P05',
    });
    const wrapped = new Error(
      'Failed query: insert into "tool_schemas" ("hash", "tools") values ($1, $2)\nparams: abc,[{"name":"x"}]',
      { cause: driver },
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
