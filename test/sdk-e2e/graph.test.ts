import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  GraphLoopError,
  Spyglass,
  type Session,
} from '../../sdk/src/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { agentName, refusal, storedSession, storedSpans } from './helpers.ts';

/**
 * The graph rows of docs/sdk.md's guard table: the node iteration limit and the graph cost limit are
 * client options (`graph`), checked when a node starts; read back from a running Spyglass server.
 */
let server: TestServer;
let sg: Spyglass;

beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
  sg = new Spyglass({
    url: server.httpUrl,
    flushIntervalMs: 50,
    graph: { maxNodeIterations: 3, maxCostUsd: 0.01 },
    logger: { warn: () => {} },
  });
});
afterAll(async () => {
  await sg?.shutdown();
  await server?.dispose();
});

/** Runs a graph agent's session; returns its id and what the session threw, once its spans are in. */
async function graphSession(
  agent: string,
  fn: (s: Session) => Promise<void>,
): Promise<{ sessionId: string; thrown: unknown }> {
  const sessionId = randomUUID();
  let thrown: unknown;
  await sg.session({ agentName: agent, sessionId }, fn).catch((err: unknown) => {
    thrown = err;
  });
  await sg.flush();
  return { sessionId, thrown };
}

describe('graph limits (spec §2.9, client options)', () => {
  it('node iteration limit: the 4th execution of a node (limit 3) raises GraphLoopError', async () => {
    const agent = agentName('graph-loop');
    const ran: string[] = [];
    let err!: GraphLoopError;
    const { sessionId, thrown } = await graphSession(agent, async (s) => {
      for (let i = 0; i < 3; i++) {
        await s.node('plan', () => ran.push('plan'));
        await s.node('act', () => ran.push('act'));
      }
      err = await refusal(() => s.node('plan', () => ran.push('plan')), GraphLoopError);
      // The session is over: another node is refused too.
      expect(await refusal(() => s.node('review', () => ran.push('review')), GraphLoopError)).toBe(
        err,
      );
      throw err;
    });
    expect(thrown).toBe(err);
    expect(ran).toEqual(['plan', 'act', 'plan', 'act', 'plan', 'act']);
    expect(err.healthTag).toBe('loop_detected');
    expect(err.details).toMatchObject({
      guard: 'graph_node_iterations',
      limit: 3,
      sessionId,
      agentName: agent,
    });

    const spans = await storedSpans(server, sessionId);
    const prevented = spans.filter((s) => s.status === 'prevented');
    expect(prevented.map((s) => s.health_tag)).toEqual(expect.arrayContaining(['loop_detected']));
    expect(prevented.some((s) => s.tool_name === 'plan' && s.error === err.message)).toBe(true);
    // Each node execution that ran is an agent span named after the node.
    expect(spans.filter((s) => s.tool_name === 'plan' && s.status === 'success')).toHaveLength(3);
    expect((await storedSession(server, sessionId)).session.health_tag).toBe('loop_detected');
  });

  it('graph cost limit: LLM cost above the limit raises BudgetExceededError when the next node starts', async () => {
    const agent = agentName('graph-cost');
    const ran: string[] = [];
    let err!: BudgetExceededError;
    const { sessionId } = await graphSession(agent, async (s) => {
      await s.node('think', () => {
        // gpt-4o: 1000 in + 1000 out = 0.0125 USD > 0.01. The node itself finishes.
        s.recordLlm({ model: 'gpt-4o', inputTokens: 1000, outputTokens: 1000 });
        ran.push('think');
      });
      err = await refusal(() => s.node('act', () => ran.push('act')), BudgetExceededError);
    });
    expect(ran).toEqual(['think']);
    expect(err.healthTag).toBe('budget_exceeded');
    expect(err.details).toMatchObject({ guard: 'graph_cost', limit: 0.01, sessionId });

    const spans = await storedSpans(server, sessionId);
    expect(spans.find((s) => s.tool_name === 'think')?.status).toBe('success');
    expect(spans.find((s) => s.tool_name === 'act')).toMatchObject({
      status: 'prevented',
      health_tag: 'budget_exceeded',
      error: err.message,
    });
    expect((await storedSession(server, sessionId)).session.health_tag).toBe('budget_exceeded');
  });
});
