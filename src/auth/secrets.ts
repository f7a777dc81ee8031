import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;

/** `sg_` + 64 hex (32 random bytes), docs/auth.md#api-keys. */
export function generateApiKey(): string {
  return `sg_${randomBytes(32).toString('hex')}`;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** What a key is recognised by in lists and audit entries, without revealing it. */
export function keyPrefix(key: string): string {
  return key.slice(0, 11);
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** scrypt's cost for new hashes: about 0.1 s of CPU and 32 MB per hash. */
export const PASSWORD_SCRYPT = Object.freeze({ N: 1 << 15, r: 8, p: 1 });
let scryptCost: { N: number; r: number; p: number } = PASSWORD_SCRYPT;

/**
 * For the test run only (test/setup-password-cost.ts): new hashes at a lower N, so that the hundred
 * or so passwords the suite sets and checks do not cost it ten seconds of CPU. Hashes carry their
 * parameters, so verification works the same either way; the server never calls this.
 */
export function setPasswordCostForTests(N: number): void {
  scryptCost = { ...PASSWORD_SCRYPT, N };
}

/** scrypt with a random salt; the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p } = scryptCost;
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(expected, actual);
}

/** `jane.doe@example.com` → `j***@example.com`: audit entries never store a full address. */
export function maskEmail(value: string): string {
  const at = value.indexOf('@');
  if (at < 1) return value;
  return `${value[0]}***${value.slice(at)}`;
}
