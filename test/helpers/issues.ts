import { expect } from 'vitest';

/** The issues of the validation error a service call must reject with (fails if it resolves). */
export const issuesOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => expect.fail('expected a validation error'),
    (err: { code: string; issues: unknown }) => {
      expect(err.code).toBe('validation');
      return err.issues;
    },
  );
