import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CircuitBreakerOpenError, Spyglass } from '../../sdk/src/index.ts';
import type { TestServer } from '../helpers/server.ts';
import {
  agentName,
  manualClock,
  putAgentConfig,
  refusal,
  storedSession,
  storedSpans,
  toolCalls,
  startRig,
  type Rig,
} from './helpers.ts';

/**
 * docs/sdk.md#circuit-breaker, one test per row: the breaker per agent + server, opened by real failing calls to
 * server-everything through wrapMcp, and moved through half-open with `guard`, a tool the test
 * makes fail or succeed, and the injected clock. Loop detection is off so only the breaker acts.
 */
let server: TestServer;
let mcp: Client;
let sg: Spyglass;
const clock = manualClock();
const BREAKER = {
  loop_enabled: false,
  cb_failure_threshold: 3,
  cb_cooldown_seconds: 30,
  cb_half_open_max_calls: 2,
};

let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ clock });
  ({ server, sg, mcp } = rig);
});
afterAll(async () => rig?.dispose());

/** A tool of server `inventory` that does what the test says: succeed, fail, or wait to be released. */
function inventory() {
  let ran = 0;
  const call = (outcome: 'ok' | 'fail' | Promise<void>) =>
    sg.guard(
      { serverName: 'inventory', toolName: 'reserve', args: { sku: 'A-1', n: ran } },
      async () => {
        ran++;
        if (outcome === 'fail') throw new Error('inventory database unavailable');
        if (outcome !== 'ok') await outcome;
        return 'reserved';
      },
    );
  return { call, ran: () => ran };
}

/** Fails the tool threshold times; the breaker is open afterwards. */
async function open(tool: ReturnType<typeof inventory>): Promise<void> {
  for (let i = 0; i < BREAKER.cb_failure_threshold; i++)
    await expect(tool.call('fail')).rejects.toThrow('inventory database unavailable');
}

async function inSession(agent: string, fn: () => Promise<void>): Promise<string> {
  await putAgentConfig(server, agent, BREAKER);
  const sessionId = randomUUID();
  await sg.session({ agentName: agent, sessionId }, fn);
  await sg.flush();
  return sessionId;
}

const statuses = async (sessionId: string) =>
  toolCalls(await storedSpans(server, sessionId)).map((c) => [c.status, c.health_tag]);
const tagOf = async (sessionId: string) =>
  (await storedSession(server, sessionId)).session.health_tag;

describe('circuit breaker (spec §3.2)', () => {
  it('closed → open after N consecutive failures: calls to that server are blocked at once', async () => {
    const agent = agentName('cb-open');
    let err!: CircuitBreakerOpenError;
    const failures: unknown[] = [];
    const sessionId = await inSession(agent, async () => {
      // echo without its required argument: server-everything answers an isError result.
      for (let i = 0; i < 3; i++)
        failures.push(await mcp.callTool({ name: 'echo', arguments: {} }));
      err = await refusal(
        () => mcp.callTool({ name: 'echo', arguments: { message: 'would work' } }),
        CircuitBreakerOpenError,
      );
    });
    for (const r of failures) expect(r).toMatchObject({ isError: true });
    expect(err.healthTag).toBe('circuit_breaker_open');
    expect(err.details).toMatchObject({
      guard: 'circuit_breaker',
      serverName: 'everything',
      agentName: agent,
      sessionId,
    });
    // A trial is allowed cooldown_seconds after the breaker opened (the clock moved a few ms since).
    expect(err.details.retryAt).toBeGreaterThan(clock.peek() + 29_900);
    expect(err.details.retryAt).toBeLessThanOrEqual(clock.peek() + 30_000);
    expect(await statuses(sessionId)).toEqual([
      ['error', null],
      ['error', null],
      ['error', null],
      ['prevented', 'circuit_breaker_open'],
    ]);
    expect(await tagOf(sessionId)).toBe('circuit_breaker_open');
  });

  it('open → half-open once cooldown_seconds have elapsed: a trial call goes through', async () => {
    const tool = inventory();
    const sessionId = await inSession(agentName('cb-cooldown'), async () => {
      await open(tool);
      await refusal(() => tool.call('ok'), CircuitBreakerOpenError);
      clock.advance(29_000);
      await refusal(() => tool.call('ok'), CircuitBreakerOpenError);
      clock.advance(1_000);
      expect(await tool.call('ok')).toBe('reserved');
    });
    expect(tool.ran()).toBe(4);
    expect(await statuses(sessionId)).toEqual([
      ['error', null],
      ['error', null],
      ['error', null],
      ['prevented', 'circuit_breaker_open'],
      ['prevented', 'circuit_breaker_open'],
      ['success', null],
    ]);
    expect(await tagOf(sessionId)).toBe('circuit_breaker_open');
  });

  it('half-open → closed when the trial calls succeed: normal operation resumes', async () => {
    const tool = inventory();
    const sessionId = await inSession(agentName('cb-close'), async () => {
      await open(tool);
      await refusal(() => tool.call('ok'), CircuitBreakerOpenError);
      clock.advance(30_000);
      expect(await tool.call('ok')).toBe('reserved');
      expect(await tool.call('ok')).toBe('reserved');
      // Closed: more calls than half_open_max_calls pass, and two failures do not reopen it.
      for (let i = 0; i < 5; i++) expect(await tool.call('ok')).toBe('reserved');
      await expect(tool.call('fail')).rejects.toThrow('inventory database unavailable');
      await expect(tool.call('fail')).rejects.toThrow('inventory database unavailable');
      expect(await tool.call('ok')).toBe('reserved');
    });
    expect(tool.ran()).toBe(3 + 2 + 5 + 3);
    const calls = await statuses(sessionId);
    expect(calls.slice(0, 4)).toEqual([
      ['error', null],
      ['error', null],
      ['error', null],
      ['prevented', 'circuit_breaker_open'],
    ]);
    expect(calls.slice(4).map(([status]) => status)).toEqual([
      ...Array(7).fill('success'),
      'error',
      'error',
      'success',
    ]);
    expect(await tagOf(sessionId)).toBe('circuit_breaker_open');
  });

  it('half-open → open when a trial call fails: the cooldown starts again', async () => {
    const tool = inventory();
    let err!: CircuitBreakerOpenError;
    let failedAt = 0;
    const sessionId = await inSession(agentName('cb-reopen'), async () => {
      await open(tool);
      clock.advance(30_000);
      await expect(tool.call('fail')).rejects.toThrow('inventory database unavailable');
      failedAt = clock.peek();
      err = await refusal(() => tool.call('ok'), CircuitBreakerOpenError);
      clock.advance(29_000);
      await refusal(() => tool.call('ok'), CircuitBreakerOpenError);
      clock.advance(1_000);
      expect(await tool.call('ok')).toBe('reserved');
    });
    // Reopened at the failed trial: the next trial is 30 s after it (not right away, as 30 s after
    // the first opening would be).
    expect(err.details.retryAt).toBeGreaterThan(failedAt + 29_900);
    expect(err.details.retryAt).toBeLessThanOrEqual(failedAt + 30_000);
    expect(tool.ran()).toBe(3 + 1 + 1);
    expect(err.healthTag).toBe('circuit_breaker_open');
    expect(await statuses(sessionId)).toEqual([
      ['error', null],
      ['error', null],
      ['error', null],
      ['error', null],
      ['prevented', 'circuit_breaker_open'],
      ['prevented', 'circuit_breaker_open'],
      ['success', null],
    ]);
    expect(await tagOf(sessionId)).toBe('circuit_breaker_open');
  });

  it('half-open admits at most half_open_max_calls trial calls', async () => {
    const tool = inventory();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let err!: CircuitBreakerOpenError;
    const sessionId = await inSession(agentName('cb-trials'), async () => {
      await open(tool);
      clock.advance(30_000);
      // Two trials in flight take both slots; a third is refused without running.
      const trials = [tool.call(held), tool.call(held)];
      err = await refusal(() => tool.call('ok'), CircuitBreakerOpenError);
      expect(tool.ran()).toBe(3 + 2);
      release();
      expect(await Promise.all(trials)).toEqual(['reserved', 'reserved']);
      // Both trials succeeded: closed again.
      expect(await tool.call('ok')).toBe('reserved');
    });
    expect(err.healthTag).toBe('circuit_breaker_open');
    expect(tool.ran()).toBe(3 + 2 + 1);
    const calls = await statuses(sessionId);
    expect(calls.filter(([s]) => s === 'prevented')).toEqual([
      ['prevented', 'circuit_breaker_open'],
    ]);
    expect(await tagOf(sessionId)).toBe('circuit_breaker_open');
  });
});
