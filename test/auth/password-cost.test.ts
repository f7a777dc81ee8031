import { afterAll, describe, expect, it } from 'vitest';
import {
  PASSWORD_SCRYPT,
  hashPassword,
  setPasswordCostForTests,
  verifyPassword,
} from '../../src/auth/secrets.ts';

/**
 * The test run hashes passwords at a lower scrypt cost (test/setup-password-cost.ts). Here: what
 * the server hashes at, and that a hash verifies by the parameters it carries, whatever the cost
 * of new hashes is.
 */
describe('password hashing cost', () => {
  afterAll(() => setPasswordCostForTests(1 << 10));

  it('hashes at N = 2^15, r = 8, p = 1 unless the test run lowered it', async () => {
    expect(PASSWORD_SCRYPT).toEqual({ N: 32768, r: 8, p: 1 });
    setPasswordCostForTests(PASSWORD_SCRYPT.N);
    const full = await hashPassword('correct horse battery');
    expect(full).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);

    setPasswordCostForTests(1 << 10);
    const cheap = await hashPassword('correct horse battery');
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    // Each verifies by its own parameters, not by the cost new hashes are made at.
    expect(await verifyPassword('correct horse battery', full)).toBe(true);
    expect(await verifyPassword('correct horse battery', cheap)).toBe(true);
    expect(await verifyPassword('correct horse staple', full)).toBe(false);
    expect(await verifyPassword('correct horse staple', cheap)).toBe(false);
  });
});
