import { expect } from 'vitest';
import { nativeSpan } from './spans.ts';
import { seedSpans } from './ui.ts';

/**
 * Two agents for the agent pages' browser tests (docs/ui.md#agents), sent through native ingest:
 * alpha runs 3 sessions against filesystem and github (6 calls, 1 failed), beta 1 session against
 * slack and filesystem (2 calls, 1 failed); an LLM turn (an agent span with tokens) in some sessions gives both a cost.
 */
export const AGENT_SEED = {
  alpha: { sessions: 3, calls: 6, failed: 1, servers: ['filesystem', 'github'] },
  beta: { sessions: 1, calls: 2, failed: 1, servers: ['filesystem', 'slack'] },
} as const;

export async function seedAgents(base: string, key: string): Promise<void> {
  const now = Date.now();
  let n = 0;
  const call = (
    agent: string,
    session: string,
    server: string,
    over: Record<string, unknown> = {},
  ) => {
    const start = now - 10 * 60_000 + n++ * 1000;
    return nativeSpan({
      agent_name: agent,
      session_id: session,
      trace_id: `trace-${session}`,
      server_name: server,
      tool_name: server === 'github' ? 'create_issue' : 'read_file',
      started_at: new Date(start).toISOString(),
      ended_at: new Date(start + 40).toISOString(),
      ...over,
    });
  };
  const failed = { status: 'error', error: 'upstream said no', output_result: null };
  // Tokens are priced on agent spans (tool calls are priced by the cost rules): an LLM turn.
  const turn = (agent: string, session: string) =>
    call(agent, session, agent, {
      span_type: 'agent',
      tool_name: 'think',
      model_id: 'gpt-4o',
      input_tokens: 1000,
      output_tokens: 200,
    });
  await seedSpans(
    base,
    [
      turn('alpha', 'alpha-s1'),
      call('alpha', 'alpha-s1', 'filesystem'),
      call('alpha', 'alpha-s1', 'github'),
      call('alpha', 'alpha-s2', 'github', failed),
      call('alpha', 'alpha-s2', 'filesystem'),
      turn('alpha', 'alpha-s3'),
      call('alpha', 'alpha-s3', 'filesystem'),
      call('alpha', 'alpha-s3', 'github'),
      turn('beta', 'beta-s1'),
      call('beta', 'beta-s1', 'slack', { tool_name: 'post_message' }),
      call('beta', 'beta-s1', 'filesystem', failed),
    ],
    key,
  );
}

/** One GraphQL call over HTTP with an API key (the API side of a browser test's check). */
export async function gqlWithKey(
  base: string,
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<any> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: unknown; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}
