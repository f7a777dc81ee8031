import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CircuitBreakerOpenError, Spyglass, type SpyglassOptions } from '../../sdk/src/index.ts';
import { startRedis } from '../helpers/redis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';
import { consumerDir } from './consumer-dir.ts';

// Several processes of one agent share its circuit breakers through Redis (option sharedBreakers).
const injected = inject('redisUrl');
const redisUrl = injected ?? '';
const run = promisify(execFile);
const breaker = (failures: number, cooldown: number, trials: number) => ({
  circuit_breaker: {
    open_after_failures: failures,
    cooldown_seconds: cooldown,
    half_open_max_calls: trials,
  },
});
/** Warnings of the instances made without a logger of their own (none expected). */
const warned: string[] = [];
const quiet = {
  warn: (m: string, d?: Record<string, unknown>) => warned.push(`${m} ${JSON.stringify(d ?? {})}`),
};

let server: TestServer;
let redis: Redis;
const open: Spyglass[] = [];
beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
  if (injected !== null) redis = new Redis(redisUrl);
});
afterAll(async () => {
  await Promise.all(open.map((sg) => sg.shutdown()));
  redis?.disconnect();
  await server?.dispose();
});

function agent(options: SpyglassOptions): Spyglass {
  // A generous Redis timeout: these tests are about sharing, on a busy machine; the outage test
  // stops Redis, which fails at once rather than late.
  const shared = options.sharedBreakers && { timeoutMs: 2000, ...options.sharedBreakers };
  const sg = new Spyglass({
    url: server.httpUrl,
    agentName: 'crawler',
    flushIntervalMs: 60_000,
    logger: quiet,
    ...options,
    ...(shared && { sharedBreakers: shared }),
  });
  open.push(sg);
  return sg;
}

let n = 0;
/** One call of crawler → search; `fn` is the tool. Resolves to what happened: 'ok', 'failed' or 'refused'. */
async function call(
  sg: Spyglass,
  fn: () => unknown = () => 'ok',
): Promise<'ok' | 'failed' | 'refused'> {
  try {
    await sg.guard({ serverName: 'search', toolName: 'query', args: { n: n++ } }, fn);
    return 'ok';
  } catch (err) {
    return err instanceof CircuitBreakerOpenError ? 'refused' : 'failed';
  }
}
/**
 * Waits until Redis's clock, the one the shared breaker decides by, is a cooldown past the
 * breaker's `field` (opened_at, or trial_at for trial slots held without an answer). Bounded: 10 s.
 */
async function cooledDown(
  key: string,
  field: 'opened_at' | 'trial_at',
  cooldownMs = 1000,
): Promise<void> {
  const at = Number(await redis.hget(key, field));
  expect(at).toBeGreaterThan(0);
  await expect
    .poll(
      async () => {
        const [s, us] = await redis.time();
        return Number(s) * 1000 + Math.floor(Number(us) / 1000) >= at + cooldownMs;
      },
      { timeout: 10_000, interval: 50 },
    )
    .toBe(true);
}
/** Polls cond every 20 ms, at most 10 s. */
async function until(cond: () => boolean): Promise<void> {
  await expect.poll(cond, { timeout: 10_000, interval: 20 }).toBe(true);
}
const failing = () => {
  throw new Error('search is down');
};

describe.runIf(injected !== null)(
  injected !== null
    ? 'circuit breakers shared through Redis'
    : 'circuit breakers shared through Redis (SKIPPED: no redis-server in this run; see test/global-setup.ts)',
  () => {
    it('two processes of one agent open, refuse, test and reopen one breaker together', async () => {
      const keyPrefix = `t-${randomUUID()}`;
      const prevention = breaker(2, 1, 2);
      const a = agent({ prevention, sharedBreakers: { redisUrl, keyPrefix } });
      const own = new Redis(redisUrl);
      const b = agent({ prevention, sharedBreakers: { redis: own, keyPrefix } });

      expect([await call(a, failing), await call(a, failing)]).toEqual(['failed', 'failed']);
      expect(warned.join('\n')).toBe('');
      const key = `${keyPrefix}:cb:crawler\u0000search`;
      expect(await redis.hget(key, 'state')).toBe('open');
      expect(await redis.pttl(key)).toBeGreaterThan(0);

      // B never saw a failure, yet its next call is refused and recorded as a prevented span.
      let ran = false;
      const sessionId = randomUUID();
      const refusal = await b
        .session({ sessionId }, () =>
          b.guard({ serverName: 'search', toolName: 'query' }, () => (ran = true)),
        )
        .catch((e: unknown) => e);
      expect(ran).toBe(false);
      expect(refusal).toBeInstanceOf(CircuitBreakerOpenError);
      expect((refusal as Error).message).toMatch(/blocked after 2 consecutive failures/);
      await b.flush();
      const spans = (await getJson(`${server.httpUrl}/api/traces/spans?session_id=${sessionId}`))
        .json as { tool_name: string; status: string; health_tag: string | null }[];
      expect(spans.find((s) => s.tool_name === 'query')).toMatchObject({
        status: 'prevented',
        health_tag: 'circuit_breaker_open',
      });

      // After the cooldown exactly two trial calls run, across both processes; the rest are refused.
      await cooledDown(key, 'opened_at');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let started = 0;
      const trial = (outcome: 'fail' | 'pass') => async () => {
        started++;
        await gate;
        if (outcome === 'fail') throw new Error('still down');
        return 'ok';
      };
      const settled: string[] = [];
      const first = call(a, trial('fail')).then((r) => (settled.push(r), r));
      await until(() => started === 1);
      const rest = [
        call(b, trial('pass')),
        call(a, trial('pass')),
        call(b, trial('pass')),
        call(a, trial('pass')),
      ].map((p) => p.then((r) => (settled.push(r), r)));
      await until(() => settled.length === 3);
      expect(settled).toEqual(['refused', 'refused', 'refused']);
      expect(started).toBe(2);
      release();
      expect(await first).toBe('failed');
      expect((await Promise.all(rest)).sort()).toEqual(['ok', 'refused', 'refused', 'refused']);

      // The failed trial reopened it for both, with the cooldown restarted.
      expect([await call(a), await call(b)]).toEqual(['refused', 'refused']);
      const again = await b
        .guard({ serverName: 'search', toolName: 'query' }, () => 'ok')
        .catch((e: Error) => e.message);
      expect(again).toMatch(/blocked after a trial call failed/);

      // Two passing trials close it; everyone's calls flow again.
      await cooledDown(key, 'opened_at');
      expect([await call(a), await call(b)]).toEqual(['ok', 'ok']);
      expect([await call(a), await call(b), await call(a)]).toEqual(['ok', 'ok', 'ok']);
      expect(await redis.exists(key)).toBe(0);

      expect(warned.join('\n')).toBe('');
      // shutdown() leaves a client the user passed open.
      await b.shutdown();
      expect(await own.ping()).toBe('PONG');
      own.disconnect();
    });

    it('a breaker opened by another Node process (importing the built spyglass-agent-sdk) refuses here', async () => {
      const keyPrefix = `t-${randomUUID()}`;
      const dir = consumerDir();
      try {
        writeFileSync(
          join(dir, 'other.mjs'),
          `import { Spyglass } from 'spyglass-agent-sdk';
const sg = new Spyglass({ agentName: 'crawler', flushIntervalMs: 60000, logger: { warn: (m) => console.error(m) }, sharedBreakers: { redisUrl: process.env.REDIS_URL, keyPrefix: process.env.PREFIX }, prevention: ${JSON.stringify(breaker(2, 30, 1))} });
const outcomes = [];
for (let i = 0; i < 3; i++) {
  try { await sg.guard({ serverName: 'search', toolName: 'query', args: { i } }, () => { throw new Error('search is down'); }); outcomes.push('ok'); }
  catch (err) { outcomes.push(err.constructor.name); }
}
await sg.shutdown();
console.log(JSON.stringify(outcomes));
`,
        );
        const env = {
          PATH: process.env.PATH ?? '',
          SPYGLASS_URL: server.httpUrl,
          REDIS_URL: redisUrl,
          PREFIX: keyPrefix,
        };
        const { stdout, stderr } = await run(process.execPath, ['other.mjs'], {
          cwd: dir,
          env,
          timeout: 30_000,
        });
        expect(stderr).toBe('');
        expect(JSON.parse(stdout.trim())).toEqual(['Error', 'Error', 'CircuitBreakerOpenError']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const here = agent({
        prevention: breaker(2, 30, 1),
        sharedBreakers: { redisUrl, keyPrefix },
      });
      expect(await call(here)).toBe('refused');
      const local = agent({ prevention: breaker(2, 30, 1) });
      expect(await call(local)).toBe('ok');
    });

    it('trial slots taken by a process that never reports (it died) are given back after a cooldown', async () => {
      const keyPrefix = `t-${randomUUID()}`;
      const prevention = breaker(1, 1, 1);
      const [a, b] = [
        agent({ prevention, sharedBreakers: { redisUrl, keyPrefix } }),
        agent({ prevention, sharedBreakers: { redisUrl, keyPrefix } }),
      ];
      const key = `${keyPrefix}:cb:crawler\u0000search`;
      expect(await call(a, failing)).toBe('failed');
      await cooledDown(key, 'opened_at');
      // A takes the only trial slot and hangs (stands in for a process killed mid-call).
      let hung = false;
      void call(a, () => new Promise(() => (hung = true)));
      await until(() => hung);
      expect(await call(b)).toBe('refused');
      await cooledDown(key, 'trial_at');
      expect([await call(b), await call(b)]).toEqual(['ok', 'ok']);
    });

    it('Redis stopped: the local breaker decides, one warning; Redis back: shared state again', async () => {
      let own = await startRedis();
      const keyPrefix = `t-${randomUUID()}`;
      const warnings: string[] = [];
      const infos: string[] = [];
      const logger = { warn: (m: string) => warnings.push(m), info: (m: string) => infos.push(m) };
      const prevention = breaker(2, 30, 1);
      const a = agent({ prevention, logger, sharedBreakers: { redisUrl: own.url, keyPrefix } });
      try {
        expect(await call(a)).toBe('ok');
        await own.stop();
        // Calls still run; this process's own breaker counts the failures and opens.
        expect([
          await call(a, failing),
          await call(a, failing),
          await call(a),
          await call(a),
        ]).toEqual(['failed', 'failed', 'refused', 'refused']);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/shared circuit breakers unavailable/);

        own = await startRedis(own.port);
        // Redis back (empty): the shared breaker, closed, decides again instead of the open local one.
        await expect.poll(() => call(a), { timeout: 10_000, interval: 100 }).toBe('ok');
        expect(infos).toEqual(['Spyglass: shared circuit breakers are back (Redis answers again)']);
        expect(warnings).toHaveLength(1);
        // And it is shared again: another process's failures open it for this one.
        const b = agent({ prevention, sharedBreakers: { redisUrl: own.url, keyPrefix } });
        expect([await call(b, failing), await call(b, failing), await call(a)]).toEqual([
          'failed',
          'failed',
          'refused',
        ]);
      } finally {
        await own.stop();
      }
    });
  },
);
