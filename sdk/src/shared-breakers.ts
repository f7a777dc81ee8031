/**
 * Circuit breakers shared through Redis by every process of an agent (option `sharedBreakers`): the
 * same rules as the local CircuitBreakers, state in one hash per agent + server under
 * `<keyPrefix>:cb:<agent>\0<server>`, each step one atomic Lua script (shared-breaker-scripts.ts).
 * Fail open, as the SDK does everywhere: when Redis errors or does not answer within timeoutMs, the
 * caller uses this process's local breaker for that call. An outage is logged once as a warning and
 * its end once; while Redis is down it is asked again at most once a second, so calls do not each
 * wait for it.
 */
import type { PreventionConfig } from './config.ts';
import { halfOpenRefusal, openRefusal, type Verdict } from './engine.ts';
import { AFTER_SCRIPT, BEFORE_SCRIPT } from './shared-breaker-scripts.ts';
import {
  closeOwned,
  openRedis,
  Script,
  whenReady,
  type OwnedRedis,
  type SharedBreakerRedis,
} from './shared-redis.ts';
import type { SdkLogger } from './types.ts';

export interface ResolvedSharedBreakers {
  source: { redisUrl: string } | { redis: SharedBreakerRedis };
  keyPrefix: string;
  timeoutMs: number;
}

/** How long a down Redis is left alone before the next call asks it again. */
const RETRY_MS = 1000;
/**
 * How long the first calls wait for a connection the SDK opened itself (a refused connection ends
 * the wait at once; a busy event loop, as in a process still starting up, can delay 'ready').
 */
const CONNECT_WAIT_MS = 5000;
const before = new Script(BEFORE_SCRIPT);
const after = new Script(AFTER_SCRIPT);
const ALLOWED: Verdict = Object.freeze({ allowed: true, healthTag: null, warning: null });

export class SharedBreakers {
  private client: SharedBreakerRedis | null = null;
  private owned: Promise<OwnedRedis> | null = null;
  private down = false;
  private retryAt = 0;
  private closed = false;

  constructor(
    private readonly opts: ResolvedSharedBreakers,
    private readonly logger: SdkLogger,
  ) {
    if ('redis' in opts.source) this.client = opts.source.redis;
    else {
      this.owned = openRedis(opts.source.redisUrl);
      this.owned.catch(() => undefined);
    }
  }

  /** The shared verdict, or null when Redis could not give one (the caller asks the local breaker). */
  async before(
    agentName: string,
    serverName: string,
    sessionId: string,
    config: PreventionConfig,
  ): Promise<Verdict | null> {
    const reply = await this.run(before, agentName, serverName, [
      config.cb_failure_threshold,
      Math.ceil(config.cb_cooldown_seconds * 1000),
      config.cb_half_open_max_calls,
      ttlMs(config),
    ]);
    if (!Array.isArray(reply)) return null;
    const [kind, a, b, c] = reply as unknown[];
    if (kind === 'allow') return ALLOWED;
    if (kind === 'open')
      return openRefusal(
        agentName,
        serverName,
        sessionId,
        config,
        Number(a),
        Number(c) === 1,
        Number(b),
      );
    if (kind === 'half_open')
      return halfOpenRefusal(agentName, serverName, sessionId, config, Number(a));
    return null;
  }

  /** Feeds a result; false when Redis did not take it (the caller feeds the local breaker). */
  async after(
    agentName: string,
    serverName: string,
    ok: boolean,
    config: PreventionConfig,
  ): Promise<boolean> {
    const reply = await this.run(after, agentName, serverName, [
      ok ? 1 : 0,
      config.cb_failure_threshold,
      config.cb_half_open_max_calls,
      ttlMs(config),
    ]);
    return typeof reply === 'string';
  }

  /** Closes the connection the SDK opened itself; a client the user passed stays open. */
  async close(): Promise<void> {
    const owned = this.owned;
    this.closed = true;
    this.owned = null;
    this.client = null;
    if (owned) await owned.then(closeOwned, () => undefined);
  }

  private async run(
    script: Script,
    agentName: string,
    serverName: string,
    args: number[],
  ): Promise<unknown> {
    const now = Date.now();
    if (this.closed || (this.down && now < this.retryAt)) return null;
    let timer: NodeJS.Timeout | undefined;
    try {
      const client = this.client ?? (await this.connect());
      const key = `${this.opts.keyPrefix}:cb:${agentName}\u0000${serverName}`;
      const answer = script.run(client, key, args);
      answer.catch(() => undefined);
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${this.opts.timeoutMs} ms`)),
          this.opts.timeoutMs,
        );
      });
      const reply = await Promise.race([answer, late]);
      if (this.down) {
        this.down = false;
        (this.logger.info ?? this.logger.warn).call(
          this.logger,
          'Spyglass: shared circuit breakers are back (Redis answers again)',
        );
      }
      return reply;
    } catch (err) {
      this.retryAt = now + RETRY_MS;
      if (!this.down) {
        this.down = true;
        this.logger.warn(
          'Spyglass: shared circuit breakers unavailable; each process uses its own breakers until Redis answers again',
          { error: (err as Error)?.message ?? String(err) },
        );
      }
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The SDK's own connection, waited for (bounded) on first use so the first calls can share. */
  private async connect(): Promise<SharedBreakerRedis> {
    if (this.owned === null) throw new Error('no connection');
    const redis = await this.owned;
    await whenReady(redis, CONNECT_WAIT_MS);
    if (!this.closed) this.client = redis;
    return redis;
  }
}

/** Idle breakers expire after five cooldowns (at least a minute): long past any decision they hold. */
// Whole milliseconds: PEXPIRE takes integers, and cooldowns may be fractional seconds.
const ttlMs = (config: PreventionConfig): number =>
  Math.ceil(Math.max(5 * config.cb_cooldown_seconds * 1000, 60_000));
