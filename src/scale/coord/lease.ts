import type { Redis } from 'ioredis';

/**
 * The leader lease in Redis: `<cluster>:leader` holds the holder's instance id with an expiry, and
 * `<cluster>:leader:token` counts acquisitions (the fencing token). Each operation is one Lua
 * script, so check-and-act is atomic. Outcomes are data; a Redis error is `unavailable`.
 */
export interface LeaseKeys {
  lease: string;
  token: string;
}

export const leaseKeys = (clusterName: string): LeaseKeys => ({
  lease: `${clusterName}:leader`,
  token: `${clusterName}:leader:token`,
});

export type Acquire =
  | { kind: 'acquired'; token: number }
  | { kind: 'held'; holder: string; expiresInMs: number }
  | { kind: 'unavailable'; error: string };

export type Renew =
  { kind: 'renewed' } | { kind: 'lost'; holder: string } | { kind: 'unavailable'; error: string };

// SET NX PX and, when it took, the next token in the same step (no moment with a lease and no token).
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('INCR', KEYS[2])}
end
return {0, redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[1])}`;

// Compare-and-PEXPIRE. A missing key (it expired while nobody else took it, or Redis restarted
// empty) is taken back: no one holds a newer token, which the fence in the database checks anyway.
const RENEW = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1}
end
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1}
end
return {0, v}`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

const RAISE_TOKEN = `
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1`;

export async function acquireLease(
  redis: Redis,
  keys: LeaseKeys,
  holder: string,
  leaseMs: number,
): Promise<Acquire> {
  try {
    const r = (await redis.eval(ACQUIRE, 2, keys.lease, keys.token, holder, String(leaseMs))) as [
      number,
      number,
      string?,
    ];
    if (r[0] === 1) return { kind: 'acquired', token: r[1] };
    return { kind: 'held', holder: r[2] ?? '', expiresInMs: r[1] };
  } catch (err) {
    return { kind: 'unavailable', error: (err as Error).message };
  }
}

export async function renewLease(
  redis: Redis,
  keys: LeaseKeys,
  holder: string,
  leaseMs: number,
): Promise<Renew> {
  try {
    const r = (await redis.eval(RENEW, 1, keys.lease, holder, String(leaseMs))) as [
      number,
      string?,
    ];
    return r[0] === 1 ? { kind: 'renewed' } : { kind: 'lost', holder: r[1] ?? '' };
  } catch (err) {
    return { kind: 'unavailable', error: (err as Error).message };
  }
}

/** Compare-and-DEL: true when this holder's lease was removed. */
export async function releaseLease(
  redis: Redis,
  keys: LeaseKeys,
  holder: string,
): Promise<boolean> {
  try {
    return (await redis.eval(RELEASE, 1, keys.lease, holder)) === 1;
  } catch {
    return false;
  }
}

/**
 * Raises the token counter to at least `token`: after Redis lost its data (restart without
 * persistence) the counter starts again at 1, below the tokens the database has seen.
 */
export async function raiseToken(redis: Redis, keys: LeaseKeys, token: number): Promise<void> {
  await redis.eval(RAISE_TOKEN, 1, keys.token, String(token));
}
