import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FireInput } from '../../src/model/alert.ts';
import { fireInput } from '../alerts/helpers.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/** Alert.source and alert(id) (docs/alerts.md#what-raised-it): what the dashboard links each alert to. */
const ADMIN = `sg_${'d'.repeat(64)}`;
let h: InProcessApp;
const ids: Record<string, string> = {};

const CASES: Record<string, Partial<FireInput>> = {
  slo: {
    type: 'slo_breached',
    serverName: null,
    agentName: 'planner',
    dedupKey: 'slo_breached:slo-1',
    fields: { slo_id: 'slo-1', metric: 'success_rate' },
  },
  anomaly: {
    type: 'anomaly_critical',
    serverName: 'files',
    dedupKey: 'anomaly:files:read',
    fields: { tool_name: 'read_file', metric: 'error_rate' },
  },
  session: {
    type: 'agent_failure',
    serverName: 'files',
    agentName: 'planner',
    sessionId: 'sess-9',
    dedupKey: 'agent_failure:sess-9',
  },
  server: { type: 'mcp_down', serverName: 'files', dedupKey: 'mcp_down:files' },
  agent: { type: 'budget_warning', serverName: null, agentName: 'planner', dedupKey: 'b:1' },
  none: { type: 'security_critical', serverName: null, dedupKey: 'sec:1', fields: {} },
};

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  expect(
    (await h.gql('mutation { createProject(id: "other", name: "Other") { id } }', {}, ADMIN))
      .errors,
  ).toBeUndefined();
  for (const [name, over] of Object.entries(CASES))
    ids[name] = (await h.services.alerts.fire(fireInput(over)))!.id;
});
afterAll(async () => h?.close());

const SOURCE = 'source { kind sloId serverName toolName metric sessionId agentName }';

describe('Alert.source', () => {
  it('names the SLO, the anomalous tool, the session, the server or the agent', async () => {
    const r = await h.gql(`{ alerts(first: 50) { edges { node { id ${SOURCE} } } } }`, {}, ADMIN);
    expect(r.errors).toBeUndefined();
    const by = new Map<string, any>(
      r.data.alerts.edges.map((e: any) => [e.node.id, e.node.source]),
    );
    const none = { sloId: null, serverName: null, toolName: null, metric: null };
    const rest = { sessionId: null, agentName: null };
    expect(by.get(ids.slo ?? '')).toEqual({ ...none, ...rest, kind: 'slo', sloId: 'slo-1' });
    expect(by.get(ids.anomaly ?? '')).toEqual({
      ...rest,
      kind: 'anomaly',
      sloId: null,
      serverName: 'files',
      toolName: 'read_file',
      metric: 'error_rate',
    });
    expect(by.get(ids.session ?? '')).toEqual({
      ...none,
      ...rest,
      kind: 'session',
      sessionId: 'sess-9',
    });
    expect(by.get(ids.server ?? '')).toEqual({
      ...none,
      ...rest,
      kind: 'server',
      serverName: 'files',
    });
    expect(by.get(ids.agent ?? '')).toEqual({
      ...none,
      ...rest,
      kind: 'agent',
      agentName: 'planner',
    });
    expect(by.get(ids.none ?? '')).toBeNull();
  });

  it("alert(id) reads one alert of the caller's project, null for another project or an unknown id", async () => {
    const one = `query($id: String!, $p: String) { alert(id: $id, projectId: $p) { id type ${SOURCE} } }`;
    const r = await h.gql(one, { id: ids.session }, ADMIN);
    expect(r.errors).toBeUndefined();
    expect(r.data.alert).toMatchObject({ id: ids.session, type: 'agent_failure' });
    expect(r.data.alert.source.kind).toBe('session');
    expect((await h.gql(one, { id: ids.session, p: 'other' }, ADMIN)).data.alert).toBeNull();
    expect((await h.gql(one, { id: 'no-such-alert' }, ADMIN)).data.alert).toBeNull();
  });
});
