import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopDetectedError, Spyglass } from '../../sdk/src/index.ts';
import type { TestServer } from '../helpers/server.ts';
import {
  agentName,
  inboxAlerts,
  manualClock,
  putAgentConfig,
  recordingLogger,
  refusal,
  storedSession,
  storedSpans,
  toolCalls,
  eventually,
  startRig,
  type Rig,
} from './helpers.ts';

/**
 * The loop rows of docs/sdk.md's guard table, through wrapMcp against the real server-everything
 * over stdio and a running Spyglass server that holds each agent's prevention config: what the
 * agent sees (the thrown error), what the server stored (spans, session tag) and the inbox.
 */
let server: TestServer;
let mcp: Client;
let sg: Spyglass;
const logger = recordingLogger();

let rig: Rig;

beforeAll(async () => {
  // A clock that moves 1 ms per read keeps the order of spans made within one millisecond.
  rig = await startRig({ logger, clock: manualClock() });
  ({ server, sg, mcp } = rig);
});
afterAll(async () => rig?.dispose());

const text = (result: unknown): string =>
  (result as { content: { text: string }[] }).content[0]?.text ?? '';
const echo = async (message: unknown) => mcp.callTool({ name: 'echo', arguments: { message } });
const sum = async (a: number, b: number) => mcp.callTool({ name: 'get-sum', arguments: { a, b } });

/** Runs fn in a session of `agent` under a config stored for it; returns the session id once its spans are in. */
async function inSession(
  agent: string,
  config: Record<string, unknown>,
  fn: () => Promise<void>,
): Promise<string> {
  await putAgentConfig(server, agent, config);
  const sessionId = randomUUID();
  await sg.session({ agentName: agent, sessionId }, fn);
  await sg.flush();
  return sessionId;
}

async function expectPrevented(
  sessionId: string,
  err: Error,
  tag: string,
  expected: [string, string | null][],
): Promise<void> {
  const calls = toolCalls(await storedSpans(server, sessionId));
  expect(calls.map((s) => [s.status, s.health_tag])).toEqual(expected);
  const prevented = calls.filter((s) => s.status === 'prevented');
  for (const s of prevented)
    expect(s).toMatchObject({
      health_tag: tag,
      error: err.message,
      agent_name: expect.any(String),
      server_name: 'everything',
    });
  expect((await storedSession(server, sessionId)).session.health_tag).toBe(tag);
}

describe('loop detection through wrapMcp (spec §2.9)', () => {
  it('repetition: the N-th consecutive call with identical arguments is blocked', async () => {
    const agent = agentName('repeat');
    let err!: LoopDetectedError;
    const sessionId = await inSession(
      agent,
      { loop_threshold: 3, loop_action: 'terminate' },
      async () => {
        expect(text(await echo('same'))).toBe('Echo: same');
        expect(text(await echo('same'))).toBe('Echo: same');
        err = await refusal(() => echo('same'), LoopDetectedError);
      },
    );
    expect(err.healthTag).toBe('loop_detected');
    expect(err.details).toMatchObject({
      guard: 'loop_repetition',
      sessionId,
      agentName: agent,
      serverName: 'everything',
      toolName: 'echo',
    });
    await expectPrevented(sessionId, err, 'loop_detected', [
      ['success', null],
      ['success', null],
      ['prevented', 'loop_detected'],
    ]);
  });

  it('ping-pong: alternating between two calls is blocked when the run reaches max(N, 4)', async () => {
    const agent = agentName('pingpong');
    let err!: LoopDetectedError;
    const sessionId = await inSession(
      agent,
      { loop_threshold: 3, loop_action: 'terminate' },
      async () => {
        await echo('ping');
        await echo('pong');
        await echo('ping');
        err = await refusal(() => echo('pong'), LoopDetectedError);
      },
    );
    expect(err.details).toMatchObject({ guard: 'loop_ping_pong', toolName: 'echo' });
    await expectPrevented(sessionId, err, 'loop_detected', [
      ['success', null],
      ['success', null],
      ['success', null],
      ['prevented', 'loop_detected'],
    ]);
  });

  it('retry without progress: the same tool failing with the same error N times stops the next call', async () => {
    const agent = agentName('retry');
    let err!: LoopDetectedError;
    const failures: unknown[] = [];
    const sessionId = await inSession(
      agent,
      { loop_threshold: 3, loop_action: 'terminate' },
      async () => {
        // Different arguments each time (so no repetition), the same validation error each time.
        for (const n of [1, 2, 3]) failures.push(await echo(n));
        err = await refusal(() => echo(4), LoopDetectedError);
      },
    );
    for (const r of failures)
      expect(r).toMatchObject({
        isError: true,
        content: [
          { type: 'text', text: expect.stringContaining('expected string, received number') },
        ],
      });
    expect(err.details).toMatchObject({ guard: 'loop_retry_without_progress', toolName: 'echo' });
    await expectPrevented(sessionId, err, 'loop_detected', [
      ['error', null],
      ['error', null],
      ['error', null],
      ['prevented', 'loop_detected'],
    ]);
    const failed = toolCalls(await storedSpans(server, sessionId)).filter(
      (s) => s.status === 'error',
    );
    for (const s of failed)
      expect(s.error).toContain('expected string, received number at message');
  });

  it('float normalisation: arguments differing past the 6th decimal are the same call', async () => {
    const agent = agentName('floats');
    let err!: LoopDetectedError;
    const sessionId = await inSession(
      agent,
      { loop_threshold: 3, loop_action: 'terminate' },
      async () => {
        // Differences at the 6th decimal are real differences: no loop.
        for (const a of [0.100001, 0.100002, 0.100003])
          expect(text(await sum(a, 2))).toContain(`The sum of ${a} and 2`);
        // 0.1000001, 0.1000002, 0.1000003 all round to 0.1: the third is a repetition.
        await sum(0.1000001, 2);
        await sum(0.1000002, 2);
        err = await refusal(() => sum(0.1000003, 2), LoopDetectedError);
      },
    );
    expect(err.details).toMatchObject({ guard: 'loop_repetition', toolName: 'get-sum' });
    await expectPrevented(sessionId, err, 'loop_detected', [
      ...Array.from({ length: 5 }, (): [string, null] => ['success', null]),
      ['prevented', 'loop_detected'],
    ]);
    const calls = toolCalls(await storedSpans(server, sessionId));
    // The spans keep the arguments as sent; only the fingerprint is rounded.
    expect(calls.map((s) => (s.input_args as { a: number }).a)).toEqual([
      0.100001, 0.100002, 0.100003, 0.1000001, 0.1000002, 0.1000003,
    ]);
  });

  it('action warn: the calls proceed, the spans and the session are tagged, an alert fires', async () => {
    const agent = agentName('warn');
    const results: string[] = [];
    const warningsBefore = logger.warnings.length;
    const sessionId = await inSession(
      agent,
      { loop_threshold: 3, loop_action: 'warn' },
      async () => {
        for (let i = 0; i < 5; i++) results.push(text(await echo('again')));
      },
    );
    expect(results).toEqual(Array(5).fill('Echo: again'));
    const calls = toolCalls(await storedSpans(server, sessionId));
    expect(calls.map((s) => s.status)).toEqual(Array(5).fill('success'));
    // Every call from the N-th identical one on is a looping call.
    expect(calls.map((s) => s.health_tag)).toEqual([
      null,
      null,
      'loop_detected',
      'loop_detected',
      'loop_detected',
    ]);
    expect((await storedSession(server, sessionId)).session.health_tag).toBe('loop_detected');
    // Logged through the SDK's logger, and the alert reached the inbox.
    expect(logger.warnings.slice(warningsBefore).some((w) => /loop/i.test(w.message))).toBe(true);
    const alerts = await eventually(
      async () => {
        const found = await inboxAlerts(server, 'loop_detected', sessionId);
        return found.length > 0 && found;
      },
      5000,
      'loop_detected alert',
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      type: 'loop_detected',
      agent_name: agent,
      session_id: sessionId,
    });
  });

  it('action terminate: the call is blocked, the session ends and every later call is refused', async () => {
    const agent = agentName('terminate');
    await putAgentConfig(server, agent, { loop_threshold: 2, loop_action: 'terminate' });
    const sessionId = randomUUID();
    let first!: LoopDetectedError;
    let ranAfter = 0;
    const outcome = sg.session({ agentName: agent, sessionId }, async () => {
      await echo('stuck');
      first = await refusal(() => echo('stuck'), LoopDetectedError);
      // Neither another argument, another tool nor a non-MCP tool gets through now.
      expect(await refusal(() => echo('something else'), LoopDetectedError)).toBe(first);
      expect(await refusal(() => sum(1, 2), LoopDetectedError)).toBe(first);
      await refusal(
        () =>
          sg.guard(
            { serverName: 'search-api', toolName: 'query', args: { q: 'x' } },
            () => ranAfter++,
          ),
        LoopDetectedError,
      );
      throw first;
    });
    await expect(outcome).rejects.toBeInstanceOf(LoopDetectedError);
    await sg.flush();
    expect(ranAfter).toBe(0);
    expect(first.details).toMatchObject({ guard: 'loop_repetition', sessionId, agentName: agent });
    const spans = await storedSpans(server, sessionId);
    expect(toolCalls(spans).map((s) => [s.tool_name, s.status, s.health_tag])).toEqual([
      ['echo', 'success', null],
      ['echo', 'prevented', 'loop_detected'],
      ['echo', 'prevented', 'loop_detected'],
      ['get-sum', 'prevented', 'loop_detected'],
      ['query', 'prevented', 'loop_detected'],
    ]);
    // The session's own agent span ends prevented with the tag.
    const agentSpan = spans.find((s) => s.span_type === 'agent');
    expect(agentSpan).toMatchObject({
      status: 'prevented',
      health_tag: 'loop_detected',
      agent_name: agent,
    });
    expect((await storedSession(server, sessionId)).session.health_tag).toBe('loop_detected');
  });
});
