import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, createKey, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/**
 * LangSight's client without a project sends `project_id: ""` (issue 24 item 6), and its CLI and
 * dashboard read sessions and lineage with `hours=` (item 12).
 */

const ADMIN = bootstrapKey();
const HOUR = 3600 * 1000;

/** A tool call as LangSight 0.15 sends it, `hoursAgo` hours back. */
function langsightSpan(sessionId: string, hoursAgo: number, projectId = '') {
  const start = new Date(Date.now() - hoursAgo * HOUR);
  return {
    span_id: `${sessionId}-${hoursAgo}`,
    trace_id: `t-${sessionId}`,
    session_id: sessionId,
    project_id: projectId,
    span_type: 'tool_call',
    server_name: `srv-${sessionId}`,
    tool_name: 'query',
    agent_name: `agent-${sessionId}`,
    started_at: start.toISOString(),
    ended_at: new Date(start.getTime() + 12).toISOString(),
    latency_ms: 12,
    status: 'success',
  };
}

describe('LangSight: empty project id and hours=', () => {
  let server: InProcessApp;
  const get = async (path: string) =>
    expectStatus(await call(server.httpUrl, 'GET', path, { key: ADMIN }), 200, path).json;

  beforeAll(async () => {
    server = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  });
  afterAll(async () => server?.close());

  it('project_id "" means no project: the batch goes to the key\'s project, not 404', async () => {
    const r = await call(server.httpUrl, 'POST', '/api/traces/spans', {
      key: ADMIN,
      body: [langsightSpan('no-project', 0)],
    });
    expect(r.status).toBe(202);
    const [span] = await get('/api/traces/spans?session_id=no-project');
    expect(span.project_id).toBe('default');

    expectStatus(
      await call(server.httpUrl, 'POST', '/api/projects', {
        key: ADMIN,
        body: { id: 'team-a', name: 'Team A' },
      }),
      201,
      'project',
    );
    const bound = await createKey(server.httpUrl, ADMIN, {
      name: 'team-a writer',
      role: 'admin',
      project_id: 'team-a',
    });
    expect(
      (
        await call(server.httpUrl, 'POST', '/api/traces/spans', {
          key: bound.key,
          body: [langsightSpan('bound-empty', 0)],
        })
      ).status,
    ).toBe(202);
    const [boundSpan] = await get('/api/traces/spans?session_id=bound-empty&project_id=team-a');
    expect(boundSpan.project_id).toBe('team-a');
  });

  it('hours=168 finds a 48-hour-old session the default 24 h window leaves out', async () => {
    expectStatus(
      await call(server.httpUrl, 'POST', '/api/traces/spans', {
        key: ADMIN,
        body: [langsightSpan('old', 48)],
      }),
      202,
      'ingest',
    );
    const ids = (list: { session_id: string }[]) => list.map((x) => x.session_id);
    expect(ids(await get('/api/agents/sessions'))).not.toContain('old');
    expect(ids(await get('/api/agents/sessions?hours=168'))).toContain('old');
    expect(ids(await get('/api/agents/sessions?hours=24'))).not.toContain('old');
  });

  it('lineage honours hours= as well', async () => {
    const servers = (l: { nodes: { id: string }[] }) => l.nodes.map((n) => n.id);
    expect(servers(await get('/api/agents/lineage'))).not.toContain('server:srv-old');
    expect(servers(await get('/api/agents/lineage?hours=168'))).toContain('server:srv-old');
  });

  it.each(['0', '721', 'abc', '1.5'])('hours=%s is a 422 naming hours', async (hours) => {
    for (const path of ['/api/agents/sessions', '/api/agents/lineage']) {
      const r = await call(server.httpUrl, 'GET', `${path}?hours=${hours}`, { key: ADMIN });
      expect(r.status).toBe(422);
      expect(r.json.detail[0]).toMatchObject({
        loc: ['query', 'hours'],
        msg: 'Input should be an integer from 1 to 720',
      });
    }
  });

  it('GraphQL sessions and lineage take hours too', async () => {
    const r = await call(server.httpUrl, 'POST', '/graphql', {
      key: ADMIN,
      body: {
        query:
          '{ sessions(hours: 168) { edges { node { sessionId } } } lineage(hours: 168) { nodes { id } } }',
      },
    });
    expect(r.json.errors).toBeUndefined();
    expect(r.json.data.sessions.edges.map((e: any) => e.node.sessionId)).toContain('old');
    expect(r.json.data.lineage.nodes.map((n: any) => n.id)).toContain('server:srv-old');
  });
});
