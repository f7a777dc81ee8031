import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** The server tabs' reads (docs/ui.md#server-tabs-drift-tools-security-impact): serverTools, a drift's tool lists, serverSessions. */
const ADMIN = `sg_${'d'.repeat(64)}`;
let h: InProcessApp;
let otherViewer: string;

const tool = (type: string) => ({
  name: 'lookup',
  description: 'Looks up <b>a row</b>',
  inputSchema: { type: 'object', properties: { id: { type } }, required: ['id'] },
});
const RECORD = `mutation ($tools: [JSON!]!) {
  recordObservedTools(serverName: "db", agentName: "scout", tools: $tools) { drift { id } }
}`;

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  expect(
    (await h.gql('mutation { createProject(id: "other", name: "O") { id } }', {}, ADMIN)).errors,
  ).toBeUndefined();
  const made = await h.gql(
    'mutation { createApiKey(input: {name: "ov", role: "viewer", projectId: "other"}) { key } }',
    {},
    ADMIN,
  );
  otherViewer = made.data.createApiKey.key as string;
  expect((await h.gql(RECORD, { tools: [tool('string')] }, ADMIN)).errors).toBeUndefined();
  const second = await h.gql(RECORD, { tools: [tool('integer')] }, ADMIN);
  expect(second.data.recordObservedTools.drift.id).toBeTruthy();
  const now = Date.now();
  const spans = [
    ['s-old', 'scout', 3],
    ['s-new', 'scout', 1],
    ['s-other-agent', 'writer', 2],
  ].map(([session, agent, minutesAgo]) =>
    nativeSpan({
      session_id: session,
      agent_name: agent,
      server_name: 'db',
      tool_name: session === 's-other-agent' ? 'write' : 'lookup',
      started_at: new Date(now - Number(minutesAgo) * 60_000).toISOString(),
      ended_at: new Date(now - Number(minutesAgo) * 60_000 + 10).toISOString(),
    }),
  );
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/traces/spans',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    payload: JSON.stringify(spans),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
});
afterAll(async () => h?.close());

describe('server tab reads', () => {
  it('serverTools: the newest list an agent posted when no check listed any, text as sent', async () => {
    const { data, errors } = await h.gql(
      '{ serverTools(name: "db") { source schemaHash tools { name description inputSchema } } }',
      {},
      ADMIN,
    );
    expect(errors).toBeUndefined();
    expect(data.serverTools.source).toBe('agent');
    expect(data.serverTools.tools).toEqual([
      {
        name: 'lookup',
        description: 'Looks up <b>a row</b>',
        inputSchema: tool('integer').inputSchema,
      },
    ]);
    const none = await h.gql(
      '{ serverTools(name: "nothing") { source tools { name } } }',
      {},
      ADMIN,
    );
    expect(none.data.serverTools).toEqual({ source: 'none', tools: [] });
  });

  it('a drift event carries the tool lists it was diffed from', async () => {
    const { data, errors } = await h.gql(
      `{ driftHistory(name: "db") { changes { paramName detail }
         previousTools { inputSchema } currentTools { inputSchema } } }`,
      {},
      ADMIN,
    );
    expect(errors).toBeUndefined();
    const [e] = data.driftHistory;
    expect(e.changes).toEqual([expect.objectContaining({ paramName: 'id' })]);
    expect(e.previousTools).toEqual([{ inputSchema: tool('string').inputSchema }]);
    expect(e.currentTools).toEqual([{ inputSchema: tool('integer').inputSchema }]);
  });

  it('serverSessions: the sessions that called the server or one tool, newest call first', async () => {
    const all = await h.gql(
      '{ serverSessions(name: "db") { sessionId agentName callCount } }',
      {},
      ADMIN,
    );
    expect(all.errors).toBeUndefined();
    expect(all.data.serverSessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([
      's-new',
      's-other-agent',
      's-old',
    ]);
    const one = await h.gql(
      '{ serverSessions(name: "db", toolName: "write", limit: 5) { sessionId agentName callCount } }',
      {},
      ADMIN,
    );
    expect(one.data.serverSessions).toEqual([
      { sessionId: 's-other-agent', agentName: 'writer', callCount: 1 },
    ]);
    const bad = await h.gql('{ serverSessions(name: "db", limit: 101) { sessionId } }', {}, ADMIN);
    expect(bad.errors?.[0]?.message).toContain('limit must be an integer from 1 to 100');
  });

  it('another project sees none of it', async () => {
    const { data, errors } = await h.gql(
      `{ serverTools(name: "db") { source tools { name } }
         driftHistory(name: "db") { id }
         serverSessions(name: "db") { sessionId } }`,
      {},
      otherViewer,
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({
      serverTools: { source: 'none', tools: [] },
      driftHistory: [],
      serverSessions: [],
    });
  });
});
