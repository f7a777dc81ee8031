import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetExceededError, Spyglass, type Session } from '../../sdk/src/index.ts';
import type { TestServer } from '../helpers/server.ts';
import {
  agentName,
  eventually,
  inboxAlerts,
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
 * The budget rows of docs/sdk.md's guard table (max_steps, max cost, soft alert, wall time, unknown
 * model pricing) against a running Spyglass server holding each agent's config, with tool calls
 * through wrapMcp to the real server-everything, and `guard` with the injected clock for time.
 */
let server: TestServer;
let mcp: Client;
let sg: Spyglass;
const clock = manualClock();

let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ clock });
  ({ server, sg, mcp } = rig);
});
afterAll(async () => rig?.dispose());

const echo = async (message: string) => mcp.callTool({ name: 'echo', arguments: { message } });

/** Runs fn in a session of `agent` under a config stored for it; returns the session id once its spans are in. */
async function inSession(
  agent: string,
  config: Record<string, unknown>,
  fn: (s: Session) => Promise<void>,
): Promise<string> {
  await putAgentConfig(server, agent, config);
  const sessionId = randomUUID();
  await sg.session({ agentName: agent, sessionId }, fn);
  await sg.flush();
  return sessionId;
}

async function sessionTag(sessionId: string): Promise<string> {
  return (await storedSession(server, sessionId)).session.health_tag;
}

describe('budget guards (spec §2.9)', () => {
  it('max_steps: at the cap the next call is blocked and the session terminated', async () => {
    const agent = agentName('steps');
    let err!: BudgetExceededError;
    let again!: BudgetExceededError;
    const sessionId = await inSession(agent, { max_steps: 3 }, async (s) => {
      for (const m of ['a', 'b', 'c']) await echo(m);
      expect(s.steps).toBe(3);
      err = await refusal(() => echo('d'), BudgetExceededError);
      again = await refusal(() => echo('e'), BudgetExceededError);
    });
    expect(err.healthTag).toBe('budget_exceeded');
    expect(err.details).toMatchObject({
      guard: 'max_steps',
      limit: 3,
      sessionId,
      agentName: agent,
    });
    expect(again).toBe(err);
    const calls = toolCalls(await storedSpans(server, sessionId));
    expect(calls.map((c) => [c.status, c.health_tag])).toEqual([
      ['success', null],
      ['success', null],
      ['success', null],
      ['prevented', 'budget_exceeded'],
      ['prevented', 'budget_exceeded'],
    ]);
    expect(calls[3]?.error).toBe(err.message);
    expect(await sessionTag(sessionId)).toBe('budget_exceeded');
  });

  it('max cost: LLM cost reaching max_cost_usd terminates the session; the next call is refused', async () => {
    const agent = agentName('cost');
    let err!: BudgetExceededError;
    let cost = 0;
    const sessionId = await inSession(
      agent,
      { max_cost_usd: 0.01, budget_soft_alert: null },
      async (s) => {
        await echo('before');
        // gpt-4o: 2.50 / 10.00 per 1M → 1000 in + 1000 out = 0.0125 USD, past the 0.01 limit.
        cost = s.recordLlm({
          model: 'gpt-4o',
          inputTokens: 1000,
          outputTokens: 1000,
          prompt: 'plan',
          completion: 'a plan',
        });
        expect(s.costUsd).toBeCloseTo(0.0125, 10);
        err = await refusal(() => echo('after'), BudgetExceededError);
      },
    );
    expect(cost).toBeCloseTo(0.0125, 10);
    expect(err.healthTag).toBe('budget_exceeded');
    expect(err.details).toMatchObject({ guard: 'max_cost', limit: 0.01, sessionId });
    const spans = await storedSpans(server, sessionId);
    const llm = spans.find((s) => s.model_id === 'gpt-4o');
    expect(llm).toMatchObject({
      span_type: 'agent',
      input_tokens: 1000,
      output_tokens: 1000,
      health_tag: 'budget_exceeded',
    });
    expect(llm?.cost_usd).toBeCloseTo(0.0125, 10);
    expect(toolCalls(spans).map((c) => [c.status, c.health_tag])).toEqual([
      ['success', null],
      ['prevented', 'budget_exceeded'],
    ]);
    expect(await sessionTag(sessionId)).toBe('budget_exceeded');
  });

  it('soft alert: crossing the threshold tags budget_warning once, fires the alert, and execution continues', async () => {
    const agent = agentName('soft');
    const results: unknown[] = [];
    const sessionId = await inSession(
      agent,
      { max_cost_usd: 1, budget_soft_alert: 0.5 },
      async (s) => {
        // gpt-4o input at 2.50 per 1M: 100k tokens = 0.25 USD per call; the threshold is 0.50.
        s.recordLlm({ model: 'gpt-4o', inputTokens: 100_000, outputTokens: 0 });
        results.push(await echo('one'));
        s.recordLlm({ model: 'gpt-4o', inputTokens: 100_000, outputTokens: 0 });
        results.push(await echo('two'));
        s.recordLlm({ model: 'gpt-4o', inputTokens: 100_000, outputTokens: 0 });
        results.push(await echo('three'));
        expect(s.costUsd).toBeCloseTo(0.75, 10);
        expect(s.healthTag).toBe('budget_warning');
      },
    );
    expect(results).toEqual(
      ['one', 'two', 'three'].map((m) => ({ content: [{ type: 'text', text: `Echo: ${m}` }] })),
    );
    const spans = await storedSpans(server, sessionId);
    const llm = spans.filter((s) => s.model_id === 'gpt-4o');
    expect(llm.map((s) => s.health_tag)).toEqual([null, 'budget_warning', null]);
    expect(toolCalls(spans).map((c) => c.status)).toEqual(['success', 'success', 'success']);
    expect(await sessionTag(sessionId)).toBe('budget_warning');
    const alerts = await eventually(
      async () => {
        const found = await inboxAlerts(server, 'budget_warning', sessionId);
        return found.length > 0 && found;
      },
      5000,
      'budget_warning alert',
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      type: 'budget_warning',
      agent_name: agent,
      session_id: sessionId,
    });
  });

  it('wall time: once the elapsed time exceeds the limit, the next tool call is blocked', async () => {
    const agent = agentName('walltime');
    let ran = 0;
    let err!: BudgetExceededError;
    const lookup = () =>
      sg.guard(
        { serverName: 'billing-api', toolName: 'lookup', args: { invoice: ran } },
        () => ++ran,
      );
    const sessionId = await inSession(agent, { max_wall_time_s: 60 }, async () => {
      await lookup();
      clock.advance(59_000); // within the limit
      await lookup();
      clock.advance(2_000);
      err = await refusal(lookup, BudgetExceededError);
    });
    expect(ran).toBe(2);
    expect(err.healthTag).toBe('budget_exceeded');
    expect(err.details).toMatchObject({
      guard: 'max_wall_time',
      limit: 60,
      sessionId,
      serverName: 'billing-api',
      toolName: 'lookup',
    });
    const calls = toolCalls(await storedSpans(server, sessionId));
    expect(calls.map((c) => [c.server_name, c.status, c.health_tag])).toEqual([
      ['billing-api', 'success', null],
      ['billing-api', 'success', null],
      ['billing-api', 'prevented', 'budget_exceeded'],
    ]);
    expect(await sessionTag(sessionId)).toBe('budget_exceeded');
  });

  it('unknown model pricing: 10 / 30 USD per 1M tokens, never zero, and it counts toward the budget', async () => {
    const agent = agentName('unknown-model');
    const costs: number[] = [];
    let err!: BudgetExceededError;
    const sessionId = await inSession(
      agent,
      { max_cost_usd: 14, budget_soft_alert: null },
      async (s) => {
        // No model at all: 200k input at 10 per 1M = 2 USD.
        costs.push(s.recordLlm({ inputTokens: 200_000, outputTokens: 0 }));
        await echo('still under budget');
        // A model nobody priced: 1M in at 10 + 100k out at 30 per 1M = 13 USD; 15 in all ≥ 14.
        costs.push(
          s.recordLlm({ model: 'acme-reasoner-7', inputTokens: 1_000_000, outputTokens: 100_000 }),
        );
        err = await refusal(() => echo('over budget'), BudgetExceededError);
      },
    );
    expect(costs[0]).toBeCloseTo(2, 10);
    expect(costs[1]).toBeCloseTo(13, 10);
    expect(err.details).toMatchObject({ guard: 'max_cost', limit: 14 });
    const spans = await storedSpans(server, sessionId);
    // The server prices the same span the same way, and says it is an estimate.
    const acme = spans.find((s) => s.model_id === 'acme-reasoner-7');
    expect(acme?.cost_usd).toBeCloseTo(13, 10);
    expect(acme?.cost_estimated).toBe(true);
    expect(toolCalls(spans).map((c) => [c.status, c.health_tag])).toEqual([
      ['success', null],
      ['prevented', 'budget_exceeded'],
    ]);
    expect(await sessionTag(sessionId)).toBe('budget_exceeded');
  });
});
