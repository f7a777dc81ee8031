import { nativeSpan } from './spans.ts';

const HOUR = 3_600_000;

/** Tool prices for the costs page's server (config `costs.rules`). */
export const COST_RULES_YAML = `costs:
  rules:
    - server: github
      tool: "create_*"
      cost_usd: 0.01
    - server: slack
      tool: "post_*"
      cost_usd: 0.002
`;

const llm = (agent: string, model: string, hoursAgo: number, input: number, output: number) => {
  const start = Date.now() - hoursAgo * HOUR;
  return nativeSpan({
    session_id: `cost-${agent}-${hoursAgo}`,
    trace_id: `cost-${agent}-${hoursAgo}`,
    agent_name: agent,
    span_type: 'agent',
    server_name: agent,
    tool_name: 'plan',
    model_id: model,
    input_tokens: input,
    output_tokens: output,
    input_args: null,
    output_result: null,
    started_at: new Date(start).toISOString(),
    ended_at: new Date(start + 100).toISOString(),
  });
};
const tool = (agent: string, server: string, name: string, hoursAgo: number) => {
  const start = Date.now() - hoursAgo * HOUR;
  return nativeSpan({
    session_id: `cost-${agent}-${hoursAgo}`,
    trace_id: `cost-${agent}-${hoursAgo}`,
    agent_name: agent,
    server_name: server,
    tool_name: name,
    started_at: new Date(start).toISOString(),
    ended_at: new Date(start + 50).toISOString(),
  });
};

/**
 * Two agents (planner, writer) calling a priced model (gpt-4o) and an unpriced one (acme-llm-1,
 * estimated) and two priced tools, in the last 24 hours and 3 days ago (so 7d differs from 24h).
 */
export function costSpans(): Record<string, unknown>[] {
  return [
    llm('planner', 'gpt-4o', 1, 200_000, 10_000),
    llm('planner', 'gpt-4o', 2, 100_000, 5_000),
    tool('planner', 'github', 'create_issue', 1),
    tool('planner', 'github', 'create_issue', 2),
    llm('writer', 'acme-llm-1', 1, 50_000, 20_000),
    tool('writer', 'slack', 'post_message', 1),
    llm('writer', 'gpt-4o', 72, 1_000_000, 100_000),
    tool('writer', 'github', 'create_pr', 72),
    llm('planner', 'acme-llm-1', 73, 10_000, 1_000),
  ];
}

/** A GraphQL query over HTTP with an API key (the test's view of the API). */
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
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}
