/**
 * The shared circuit breaker's two steps as Lua scripts, so each runs atomically in Redis however
 * many agent processes call at once. Same rules as the local CircuitBreakers (guards/circuit-breakers.ts).
 * One hash per agent + server: state (closed | open | half_open), failures, opened_at, trials,
 * successes, reopened (0/1), trial_at. Times are Redis TIME in milliseconds: one wall clock for every
 * process and host, never a process's own monotonic clock. Every write refreshes the key's expiry,
 * so a breaker nobody calls is forgotten (closed again) and Redis does not fill up.
 */

const NOW = `local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;

/**
 * KEYS[1] the breaker; ARGV threshold, cooldown_ms, max_trials, ttl_ms.
 * Returns {'allow'}, {'open', failures, retry_at, reopened} or {'half_open', trials}.
 * A half-open round whose trial slots are all taken for a whole cooldown without deciding starts
 * over: the process holding them may have died (the local breaker keeps them; it cannot lose a process).
 */
export const BEFORE_SCRIPT = `${NOW}
local key = KEYS[1]
local threshold, cooldown, max_trials, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local h = redis.call('HMGET', key, 'state', 'failures', 'opened_at', 'trials', 'successes', 'reopened', 'trial_at')
local state = h[1]
if not state then return {'allow'} end
local now = now_ms()
local failures = tonumber(h[2]) or 0
local opened_at = tonumber(h[3]) or now
local reopened = tonumber(h[6]) or 0
if state == 'closed' then
  if failures < threshold then return {'allow'} end
  state, opened_at, reopened = 'open', now, 0
  redis.call('HSET', key, 'state', 'open', 'opened_at', now, 'trials', 0, 'successes', 0, 'reopened', 0)
  redis.call('PEXPIRE', key, ttl)
end
if state == 'open' then
  local retry_at = opened_at + cooldown
  if now < retry_at then return {'open', failures, retry_at, reopened} end
  redis.call('HSET', key, 'state', 'half_open', 'trials', 1, 'successes', 0, 'trial_at', now)
  redis.call('PEXPIRE', key, ttl)
  return {'allow'}
end
local trials, successes = tonumber(h[4]) or 0, tonumber(h[5]) or 0
if successes >= max_trials then
  redis.call('DEL', key)
  return {'allow'}
end
if trials >= max_trials and now >= (tonumber(h[7]) or 0) + cooldown then
  redis.call('HSET', key, 'trials', 1, 'successes', 0, 'trial_at', now)
  redis.call('PEXPIRE', key, ttl)
  return {'allow'}
end
if trials < max_trials then
  redis.call('HINCRBY', key, 'trials', 1)
  redis.call('PEXPIRE', key, ttl)
  return {'allow'}
end
return {'half_open', trials}`;

/**
 * KEYS[1] the breaker; ARGV ok (1/0), threshold, max_trials, ttl_ms. Returns the state after it.
 * A result arriving while open (a call admitted before it opened) changes nothing.
 */
export const AFTER_SCRIPT = `${NOW}
local key = KEYS[1]
local ok = ARGV[1] == '1'
local threshold, max_trials, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local h = redis.call('HMGET', key, 'state', 'failures')
local state = h[1]
local function open(failures, reopened)
  redis.call('HSET', key, 'state', 'open', 'failures', failures, 'opened_at', now_ms(), 'trials', 0, 'successes', 0, 'reopened', reopened)
  redis.call('PEXPIRE', key, ttl)
  return 'open'
end
if not state then
  if ok then return 'closed' end
  if 1 >= threshold then return open(1, 0) end
  redis.call('HSET', key, 'state', 'closed', 'failures', 1)
  redis.call('PEXPIRE', key, ttl)
  return 'closed'
end
if state == 'open' then return 'open' end
local failures = tonumber(h[2]) or 0
if state == 'closed' then
  if ok then
    redis.call('DEL', key)
    return 'closed'
  end
  failures = failures + 1
  if failures >= threshold then return open(failures, 0) end
  redis.call('HSET', key, 'failures', failures)
  redis.call('PEXPIRE', key, ttl)
  return 'closed'
end
if not ok then return open(failures + 1, 1) end
if redis.call('HINCRBY', key, 'successes', 1) >= max_trials then
  redis.call('DEL', key)
  return 'closed'
end
redis.call('PEXPIRE', key, ttl)
return 'half_open'`;
