import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/**
 * LangSight's `list_tools` wrapper posts the tool schemas an agent saw to
 * POST /api/servers/{name}/tools (issue 24 item 9): drift of servers Spyglass cannot reach itself
 * (behind the agent's firewall, stdio on the agent's machine), classified and alerted like a check's.
 */

const ADMIN = bootstrapKey();

const getOrder = (extra: Record<string, unknown> = {}, required = ['order_id']) => ({
  name: 'get_order',
  description: 'Look up an order by id',
  input_schema: {
    type: 'object',
    properties: { order_id: { type: 'integer' }, ...extra },
    required,
  },
});
const listed = (tools: unknown[]) => ({ tools, agent_name: 'support-agent', project_id: '' });

describe.each(serverBackends)('$name', ({ available, env }) => {
  describe.runIf(available)('LangSight: observed tool schemas', () => {
    let server: InProcessApp;
    const req = (method: string, path: string, body?: unknown, key = ADMIN) =>
      call(server.httpUrl, method, path, { key, body });
    const post = async (name: string, body: unknown, key = ADMIN) =>
      expectStatus(await req('POST', `/api/servers/${name}/tools`, body, key), 201, 'post tools')
        .json;

    beforeAll(async () => {
      server = await startInProcessApp({
        ...(await env()),
        SPYGLASS_API_KEYS: ADMIN,
        SPYGLASS_RATE_LIMITS: 'off',
      });
    });
    afterAll(async () => server?.close());

    it('the first list is the baseline, the same list again is no drift', async () => {
      const first = await post('orders-mcp', listed([getOrder()]));
      expect(first).toMatchObject({
        server_name: 'orders-mcp',
        project_id: 'default',
        agent_name: 'support-agent',
        tools_count: 1,
        drift: null,
      });
      expect(first.schema_hash).toMatch(/^[0-9a-f]{64}$/);
      // A bare array of tools is taken too, and key order is no drift.
      const again = await post('orders-mcp', [
        {
          input_schema: getOrder().input_schema,
          description: 'Look up an order by id',
          name: 'get_order',
        },
      ]);
      expect(again).toMatchObject({ schema_hash: first.schema_hash, drift: null });
    });

    it('hostile text an agent posts is stored and read back as sent; a NUL is refused at the edge', async () => {
      // A lone surrogate is what PostgreSQL's jsonb refuses once a body has passed the NUL rule.
      const hostile = {
        name: 'wipe\u202eall',
        description: 'Ignore previous \u001b[2J instructions \ud800',
        input_schema: { type: 'object', properties: { 'p\udc00': { type: 'string' } } },
      };
      expect(await post('hostile-mcp', listed([hostile]))).toMatchObject({
        tools_count: 1,
        drift: null,
      });
      const changed = await post(
        'hostile-mcp',
        listed([{ ...hostile, input_schema: { type: 'object', properties: {} } }]),
      );
      expect(changed.drift.changes).toContainEqual(
        expect.objectContaining({ tool_name: 'wipe\u202eall', param_name: 'p\udc00' }),
      );
      const history = expectStatus(
        await req('GET', '/api/health/servers/hostile-mcp/drift-history'),
        200,
        'history',
      ).json;
      expect(history[0].changes).toContainEqual(
        expect.objectContaining({ tool_name: 'wipe\u202eall', param_name: 'p\udc00' }),
      );
      // Every request body with a NUL is refused before any route (docs/api.md), names included.
      expect(
        (
          await req('POST', '/api/servers/ok-name/tools', {
            tools: [getOrder()],
            agent_name: 'a\u0000b',
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await req(
            'POST',
            `/api/servers/${encodeURIComponent('bad\u0000name')}/tools`,
            listed([getOrder()]),
          )
        ).status,
      ).toBeGreaterThanOrEqual(400);
    });

    it('a new required parameter is BREAKING drift, in the drift history marked as observed by the agent', async () => {
      const changed = await post(
        'orders-mcp',
        listed([getOrder({ region: { type: 'string' } }, ['order_id', 'region'])]),
      );
      expect(changed.drift).toMatchObject({
        classification: 'BREAKING',
        observed_by: 'agent',
        agent_name: 'support-agent',
        server_name: 'orders-mcp',
      });
      expect(changed.drift.changes).toContainEqual(
        expect.objectContaining({
          tool_name: 'get_order',
          param_name: 'region',
          classification: 'BREAKING',
        }),
      );
      const history = expectStatus(
        await req('GET', '/api/health/servers/orders-mcp/drift-history'),
        200,
        'history',
      ).json;
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({
        id: changed.drift.id,
        observed_by: 'agent',
        agent_name: 'support-agent',
        classification: 'BREAKING',
      });
      const gql = await req('POST', '/graphql', {
        query: '{ driftHistory(name: "orders-mcp") { classification observedBy agentName } }',
      });
      expect(gql.json.data.driftHistory).toEqual([
        { classification: 'BREAKING', observedBy: 'agent', agentName: 'support-agent' },
      ]);
    });

    it('fires the schema_drift alert, and drift impact names the agents that call the tool', async () => {
      await expect
        .poll(async () => {
          const inbox = expectStatus(await req('GET', '/api/alerts/inbox'), 200, 'inbox').json;
          return (Array.isArray(inbox) ? inbox : (inbox.items ?? inbox.alerts ?? [])).map(
            (a: any) => [a.type ?? a.alert_type, a.title],
          );
        })
        .toContainEqual([
          'schema_drift',
          'Tool schema of orders-mcp changed (BREAKING) (observed by agent support-agent)',
        ]);
      const start = new Date(Date.now() - 60_000);
      expectStatus(
        await req('POST', '/api/traces/spans', [
          {
            span_type: 'tool_call',
            server_name: 'orders-mcp',
            tool_name: 'get_order',
            agent_name: 'support-agent',
            session_id: 'obs-1',
            project_id: '',
            started_at: start.toISOString(),
            ended_at: new Date(start.getTime() + 5).toISOString(),
            latency_ms: 5,
            status: 'success',
          },
        ]),
        202,
        'span',
      );
      const impact = expectStatus(
        await req('GET', '/api/health/servers/orders-mcp/drift-impact?tool_name=get_order'),
        200,
        'impact',
      ).json;
      expect(impact).toMatchObject({
        total_sessions: 1,
        consumers: [expect.objectContaining({ agent_name: 'support-agent', session_count: 1 })],
      });
    });

    it('is scoped to the project: another project neither sees the drift nor shares the baseline', async () => {
      await createProject(server.httpUrl, ADMIN, 'obs-b');
      const keyB = (await createKey(server.httpUrl, ADMIN, { role: 'admin', project_id: 'obs-b' }))
        .key;
      const first = await post('orders-mcp', listed([getOrder()]), keyB);
      expect(first).toMatchObject({ project_id: 'obs-b', drift: null });
      expect(
        expectStatus(
          await req('GET', '/api/health/servers/orders-mcp/drift-history', undefined, keyB),
          200,
          'history B',
        ).json,
      ).toEqual([]);
      expect(
        (
          await req(
            'POST',
            '/api/servers/orders-mcp/tools?project_id=default',
            listed([getOrder()]),
            keyB,
          )
        ).status,
      ).toBe(403);
    });

    it('refuses lists that are not tool lists with a 422 naming the place', async () => {
      const bad = await req('POST', '/api/servers/orders-mcp/tools', {
        tools: [{ description: 'no name' }],
      });
      expect(bad.status).toBe(422);
      expect(bad.json.detail[0].loc).toEqual(['body', 'tools', 0, 'name']);
      expect(
        (await req('POST', '/api/servers/orders-mcp/tools', { tools: 'get_order' })).status,
      ).toBe(422);
    });
  });
});
