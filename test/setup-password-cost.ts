import { setPasswordCostForTests } from '../src/auth/secrets.ts';

/**
 * Every test file's setup (vitest.config.ts): passwords hashed in this process use scrypt at N = 2^10
 * instead of 2^15, about 3 ms of CPU instead of 100 ms each. What the tests check of passwords
 * (accepted, refused, lockout, decoy hashing, never shown) does not depend on the cost; that a
 * server hashes at full cost is test/auth/password-cost.test.ts's. Servers in child processes (the
 * CLI, `spyglass serve`) keep the full cost.
 */
setPasswordCostForTests(1 << 10);
