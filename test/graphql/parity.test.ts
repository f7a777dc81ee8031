import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { saveCheck } from '../../src/store/health-repo.ts';

/**
 * GraphQL is the whole API: every REST capability has a GraphQL counterpart (the dashboard speaks
 * GraphQL only), and every object a client refetches is a Node.
 */
const ADMIN = `sg_${'b'.repeat(64)}`;
let h: InProcessApp;
let viewerKey: string;

/** Each REST route and the GraphQL fields that do the same. */
const COUNTERPARTS: Record<string, string[]> = {
  'POST /api/traces/spans': ['Mutation.ingestSpans'],
  'GET /api/traces/spans': ['Query.spans', 'Query.span'],
  'GET /api/settings': ['Query.settings'],
  'PUT /api/settings': ['Mutation.updateSettings'],
  'POST /api/auth/api-keys': ['Mutation.createApiKey'],
  'GET /api/auth/api-keys': ['Query.apiKeys'],
  'DELETE /api/auth/api-keys/:id': ['Mutation.revokeApiKey'],
  'GET /api/users': ['Query.users'],
  'POST /api/users/invite': ['Mutation.inviteUser'],
  'PATCH /api/users/:user_id/role': ['Mutation.changeUserRole'],
  'DELETE /api/users/:user_id': ['Mutation.deactivateUser'],
  'GET /api/projects': ['Query.projects'],
  'POST /api/projects': ['Mutation.createProject'],
  'GET /api/projects/:project_id': ['Query.project'],
  'PATCH /api/projects/:project_id': ['Mutation.updateProject'],
  'DELETE /api/projects/:project_id': ['Mutation.deleteProject'],
  'GET /api/audit/logs': ['Query.auditLog'],
  'GET /api/agents/sessions': ['Query.sessions'],
  'GET /api/agents/sessions/:session_id': ['Query.session'],
  'GET /api/agents/lineage': ['Query.lineage'],
  'GET /api/agents/metadata': ['Query.agents'],
  'GET /api/agents/metadata/:agent_name': ['Query.agent'],
  'PUT /api/agents/metadata/:agent_name': ['Mutation.putAgent'],
  'DELETE /api/agents/metadata/:agent_name': ['Mutation.deleteAgent'],
  'GET /api/servers/metadata': ['Query.servers'],
  'GET /api/servers/metadata/:name': ['Query.server'],
  'PUT /api/servers/metadata/:name': ['Mutation.putServer'],
  'DELETE /api/servers/metadata/:name': ['Mutation.deleteServer'],
  'POST /api/agents/discover': ['Mutation.discoverAgents'],
  'POST /api/servers/discover': ['Mutation.discoverServers'],
  'GET /api/live/events': [
    'Subscription.spanNew',
    'Subscription.healthCheck',
    'Subscription.alertFired',
  ],
  'GET /api/health/servers': ['Query.healthServers'],
  'GET /api/health/servers/:name': ['Query.healthServer'],
  'GET /api/health/servers/:name/history': ['Query.healthHistory', 'Query.healthHistoryConnection'],
  'GET /api/health/servers/:name/drift-history': [
    'Query.driftHistory',
    'Query.driftHistoryConnection',
  ],
  'GET /api/health/servers/:name/drift-impact': ['Query.driftImpact'],
  'GET /api/health/servers/:name/blast-radius': ['Query.blastRadius'],
  'GET /api/health/servers/:name/scorecard': ['Query.scorecard'],
  'POST /api/health/check': ['Mutation.runHealthChecks'],
  'POST /api/servers/:name/tools': ['Mutation.recordObservedTools'],
  'POST /api/security/scan': ['Mutation.runSecurityScan'],
  'GET /api/security/servers/:name': ['Query.securityScan'],
  'GET /api/security/servers/:name/history': ['Query.securityScanHistory'],
  'GET /api/reliability/anomalies': ['Query.anomalies', 'Query.anomaliesConnection'],
  'GET /api/costs/breakdown': ['Query.costBreakdown'],
  'GET /api/costs/models': ['Query.modelPricing'],
  'POST /api/costs/models': ['Mutation.addModelPricing'],
  'PATCH /api/costs/models/:model_id': ['Mutation.updateModelPricing'],
  'DELETE /api/costs/models/:model_id': ['Mutation.deleteModelPricing'],
  'GET /api/slos': ['Query.slos', 'Query.slosConnection'],
  'POST /api/slos': ['Mutation.createSlo'],
  'GET /api/slos/status': ['Query.sloStatus'],
  'PATCH /api/slos/:slo_id': ['Mutation.updateSlo'],
  'DELETE /api/slos/:slo_id': ['Mutation.deleteSlo'],
  'GET /api/alerts/inbox': ['Query.alerts'],
  'GET /api/alerts/counts': ['Query.alertCounts'],
  'POST /api/alerts/:id/ack': ['Mutation.acknowledgeAlert'],
  'POST /api/alerts/:id/resolve': ['Mutation.resolveAlert'],
  'POST /api/alerts/:id/snooze': ['Mutation.snoozeAlert'],
  'GET /api/alerts/config': ['Query.alertConfig'],
  'POST /api/alerts/config': ['Mutation.saveAlertConfig'],
  'POST /api/alerts/test': ['Mutation.testAlertWebhook'],
  'GET /api/agents/:name/prevention-config': ['Query.preventionConfig'],
  'PUT /api/agents/:name/prevention-config': ['Mutation.setPreventionConfig'],
  'PATCH /api/agents/:name/prevention-config': ['Mutation.updatePreventionConfig'],
  'DELETE /api/agents/:name/prevention-config': ['Mutation.deletePreventionConfig'],
  'GET /api/projects/:project_id/prevention-config': ['Query.preventionConfig'],
  'PUT /api/projects/:project_id/prevention-config': ['Mutation.setPreventionConfig'],
  'PATCH /api/projects/:project_id/prevention-config': ['Mutation.updatePreventionConfig'],
  'DELETE /api/projects/:project_id/prevention-config': ['Mutation.deletePreventionConfig'],
  'GET /api/prevention-config': ['Query.preventionConfig'],
  'PUT /api/prevention-config': ['Mutation.setPreventionConfig'],
  'PATCH /api/prevention-config': ['Mutation.updatePreventionConfig'],
  'DELETE /api/prevention-config': ['Mutation.deletePreventionConfig'],
  'GET /api/prevention-configs': ['Query.preventionConfigs'],
};

/** Routes with no GraphQL counterpart, and why. */
const NOT_GRAPHQL: Record<string, string> = {
  'GET /': 'the dashboard itself (static files)',
  'GET /assets/*': "the dashboard's static files",
  'GET /metrics': 'Prometheus scrape',
  'GET /api/liveness': 'probe',
  'GET /api/readiness': 'probe',
  'GET /api/status': 'probe',
  'POST /api/traces/otlp': 'OTLP protocol endpoint',
  'POST /v1/traces': 'OTLP protocol endpoint',
  'POST /api/users/accept-invite':
    'public: the invitation token is the credential, /graphql needs a key',
  'POST /api/users/verify': 'public: the password is the credential, /graphql needs a key',
  'GET /graphql': 'GraphQL itself',
  'POST /graphql': 'GraphQL itself',
  'OPTIONS /graphql': 'GraphQL itself',
};

const rest = (method: string, url: string, body?: unknown, key = ADMIN) =>
  h.app.inject({
    method: method as 'GET',
    url,
    headers: {
      'x-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  const created = await h.gql(
    'mutation { createApiKey(input: {name: "viewer", role: "viewer"}) { key } }',
    {},
    ADMIN,
  );
  viewerKey = created.data.createApiKey.key;
});
afterAll(async () => h?.close());

describe('GraphQL parity with REST', () => {
  it('every REST route has a GraphQL counterpart in the schema, or a reason it has none', async () => {
    const { data } = await h.gql(
      '{ __schema { queryType { fields { name } } mutationType { fields { name } } subscriptionType { fields { name } } } }',
      {},
      ADMIN,
    );
    const fields = new Set([
      ...data.__schema.queryType.fields.map((f: { name: string }) => `Query.${f.name}`),
      ...data.__schema.mutationType.fields.map((f: { name: string }) => `Mutation.${f.name}`),
      ...data.__schema.subscriptionType.fields.map(
        (f: { name: string }) => `Subscription.${f.name}`,
      ),
    ]);
    const routes = h.app.routeList.map((r) => `${r.method} ${r.url}`);
    expect(routes.filter((r) => !(r in COUNTERPARTS) && !(r in NOT_GRAPHQL))).toEqual([]);
    expect(
      Object.values(COUNTERPARTS)
        .flat()
        .filter((f) => !fields.has(f)),
    ).toEqual([]);
    // The table names no route that is gone.
    expect(Object.keys(COUNTERPARTS).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it('manages users and invitations; a viewer cannot', async () => {
    const invited = await h.gql(
      'mutation { inviteUser(email: "ada@example.com", role: "admin") { inviteToken expiresAt user { id email role status } } }',
      {},
      ADMIN,
    );
    const { user, inviteToken } = invited.data.inviteUser;
    expect(user).toMatchObject({ email: 'ada@example.com', role: 'admin', status: 'invited' });
    expect(inviteToken).toMatch(/\S{20,}/);
    expect((await h.gql('{ users { email status } }', {}, ADMIN)).data.users).toContainEqual({
      email: 'ada@example.com',
      status: 'invited',
    });
    const changed = await h.gql(
      'mutation($id: String!) { changeUserRole(id: $id, role: "viewer") { role } }',
      { id: user.id },
      ADMIN,
    );
    expect(changed.data.changeUserRole.role).toBe('viewer');
    const bad = await h.gql(
      'mutation($id: String!) { changeUserRole(id: $id, role: "owner") { role } }',
      { id: user.id },
      ADMIN,
    );
    expect(bad.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 422 });
    expect(
      (await h.gql('mutation { inviteUser(email: "not-an-email") { inviteToken } }', {}, ADMIN))
        .errors[0].extensions.code,
    ).toBe('VALIDATION');
    const gone = await h.gql(
      'mutation($id: String!) { deactivateUser(id: $id) { status } }',
      { id: user.id },
      ADMIN,
    );
    expect(gone.data.deactivateUser.status).toBe('deactivated');
    // The same rules as REST, decided by the service: a viewer neither lists nor invites.
    expect((await h.gql('{ users { email } }', {}, viewerKey)).errors[0].extensions.code).toBe(
      'FORBIDDEN',
    );
    expect(
      (
        await h.gql(
          'mutation { inviteUser(email: "eve@example.com") { inviteToken } }',
          {},
          viewerKey,
        )
      ).errors[0].extensions.code,
    ).toBe('FORBIDDEN');
    const listed = (await rest('GET', '/api/users')).json() as { email: string; status: string }[];
    expect(listed.find((u) => u.email === 'ada@example.com')?.status).toBe('deactivated');
  });

  it('creates an API key shown once, lists it without the secret, revokes it; each change audited', async () => {
    const created = await h.gql(
      'mutation { createApiKey(input: {name: "ci", role: "admin", expiresInDays: 30}) { key apiKey { id name prefix role expiresAt revokedAt } } }',
      {},
      ADMIN,
    );
    const { key, apiKey } = created.data.createApiKey;
    expect(key).toMatch(/^sg_[0-9a-f]{64}$/);
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    expect(apiKey).toMatchObject({ name: 'ci', role: 'admin', revokedAt: null });
    expect((await rest('GET', '/api/auth/api-keys', undefined, key)).statusCode).toBe(200);
    const listed = await h.gql('{ apiKeys { id name } }', {}, ADMIN);
    expect(listed.data.apiKeys).toContainEqual({ id: apiKey.id, name: 'ci' });
    expect(JSON.stringify(listed)).not.toContain(key);
    const revoked = await h.gql(
      'mutation($id: String!) { revokeApiKey(id: $id) { id revokedAt } }',
      { id: apiKey.id },
      ADMIN,
    );
    expect(revoked.data.revokeApiKey.revokedAt).not.toBeNull();
    expect((await rest('GET', '/api/auth/api-keys', undefined, key)).statusCode).toBe(401);
    expect(
      (
        await h.gql(
          'mutation($id: String!) { revokeApiKey(id: $id) { id } }',
          { id: apiKey.id },
          ADMIN,
        )
      ).errors[0].extensions.code,
    ).toBe('CONFLICT');
    expect(
      (await h.gql('mutation { createApiKey(input: {name: ""}) { key } }', {}, ADMIN)).errors[0]
        .extensions.issues,
    ).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
    expect(
      (await h.gql('mutation { createApiKey(input: {name: "x"}) { key } }', {}, viewerKey))
        .errors[0].extensions.code,
    ).toBe('FORBIDDEN');

    const audit = await h.gql(
      '{ auditLog(first: 200) { edges { node { action resource result } } pageInfo { hasNextPage } } }',
      {},
      ADMIN,
    );
    const actions = audit.data.auditLog.edges.map(
      (e: { node: { action: string; resource: string } }) => `${e.node.action} ${e.node.resource}`,
    );
    expect(actions).toContain(`api_key.created api_key:${apiKey.prefix}`);
    expect(actions).toContain(`api_key.revoked api_key:${apiKey.prefix}`);
    expect(
      (await h.gql('{ auditLog { edges { cursor } } }', {}, viewerKey)).errors[0].extensions.code,
    ).toBe('FORBIDDEN');
  });

  it("pages the audit log by cursor, and a forged cursor is the client's error", async () => {
    const first = await h.gql(
      '{ auditLog(first: 2) { edges { node { eventId } } pageInfo { hasNextPage endCursor } } }',
      {},
      ADMIN,
    );
    expect(first.data.auditLog.edges).toHaveLength(2);
    expect(first.data.auditLog.pageInfo.hasNextPage).toBe(true);
    const next = await h.gql(
      'query($after: String) { auditLog(first: 2, after: $after) { edges { node { eventId } } } }',
      { after: first.data.auditLog.pageInfo.endCursor },
      ADMIN,
    );
    const ids = (r: any) =>
      r.data.auditLog.edges.map((e: { node: { eventId: string } }) => e.node.eventId);
    expect(ids(next)).not.toContain(ids(first)[0]);
    const forged = await h.gql(
      '{ auditLog(first: 2, after: "T2Zmc2V0Q29ubmVjdGlvbjp4") { edges { cursor } } }',
      {},
      ADMIN,
    );
    expect(forged.errors[0].extensions.code).toBe('VALIDATION');
  });

  it('updates a project', async () => {
    await h.gql('mutation { createProject(id: "parity", name: "Parity") { id } }', {}, ADMIN);
    const updated = await h.gql(
      'mutation { updateProject(id: "parity", name: "Renamed", settings: {team: "ml"}) { id name settings } }',
      {},
      ADMIN,
    );
    expect(updated.data.updateProject).toEqual({
      id: 'parity',
      name: 'Renamed',
      settings: { team: 'ml' },
    });
    expect((await rest('GET', '/api/projects/parity')).json()).toMatchObject({
      name: 'Renamed',
      settings: { team: 'ml' },
    });
    expect(
      (await h.gql('mutation { updateProject(id: "parity", name: "x") { id } }', {}, viewerKey))
        .errors[0].extensions.code,
    ).toBe('FORBIDDEN');
  });

  it('ingests a native batch and returns one span with its payloads', async () => {
    const span = nativeSpan({
      span_id: 'gql-ingest-1',
      session_id: 'gql-ingest',
      input_args: { path: '/etc/hosts' },
      output_result: 'ok',
    });
    const res = await h.gql(
      'mutation($spans: [JSON!]!) { ingestSpans(spans: $spans) { accepted duplicates } }',
      { spans: [span] },
      ADMIN,
    );
    expect(res.data.ingestSpans).toEqual({ accepted: 1, duplicates: 0 });
    const again = await h.gql(
      'mutation($spans: [JSON!]!) { ingestSpans(spans: $spans) { accepted duplicates } }',
      { spans: [span] },
      ADMIN,
    );
    expect(again.data.ingestSpans).toEqual({ accepted: 0, duplicates: 1 });
    const one = await h.gql(
      '{ span(spanId: "gql-ingest-1") { spanId sessionId inputArgs outputResult } }',
      {},
      viewerKey,
    );
    expect(one.data.span).toEqual({
      spanId: 'gql-ingest-1',
      sessionId: 'gql-ingest',
      inputArgs: { path: '/etc/hosts' },
      outputResult: 'ok',
    });
    expect(
      (await h.gql('{ span(spanId: "no-such-span") { spanId } }', {}, ADMIN)).errors[0].extensions
        .code,
    ).toBe('NOT_FOUND');
    // Same validation as REST: a bad span is a 422 with every problem.
    const invalid = await h.gql(
      'mutation { ingestSpans(spans: [{span_id: "x"}]) { accepted } }',
      {},
      ADMIN,
    );
    expect(invalid.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 422 });
    expect(
      (
        await h.gql(
          'mutation($spans: [JSON!]!) { ingestSpans(spans: $spans) { accepted } }',
          { spans: [span] },
          viewerKey,
        )
      ).errors[0].extensions.code,
    ).toBe('FORBIDDEN');
  });

  it('records the tools an agent saw, and the drift between two lists', async () => {
    const record = `mutation($tools: [JSON!]!) { recordObservedTools(serverName: "orders", tools: $tools, agentName: "support") {
      toolsCount agentName drift { classification changes { toolName paramName classification } } } }`;
    const tool = (required: string[]) => ({
      name: 'get_order',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, region: { type: 'string' } },
        required,
      },
    });
    const first = await h.gql(record, { tools: [tool(['id'])] }, ADMIN);
    expect(first.data.recordObservedTools).toEqual({
      toolsCount: 1,
      agentName: 'support',
      drift: null,
    });
    const second = await h.gql(record, { tools: [tool(['id', 'region'])] }, ADMIN);
    expect(second.data.recordObservedTools.drift.classification).toBe('BREAKING');
    expect(second.data.recordObservedTools.drift.changes).toContainEqual(
      expect.objectContaining({ toolName: 'get_order', paramName: 'region' }),
    );
    expect(
      (await h.gql(record, { tools: [tool(['id'])] }, viewerKey)).errors[0].extensions.code,
    ).toBe('FORBIDDEN');
  });

  it('lists spans with size-capped payload previews; span(spanId) has the whole payload', async () => {
    const long = 'x'.repeat(1000);
    const span = nativeSpan({
      span_id: 'gql-preview-1',
      session_id: 'gql-preview',
      input_args: { text: long },
      output_result: 'short',
    });
    await h.gql(
      'mutation($s: [JSON!]!) { ingestSpans(spans: $s) { accepted } }',
      { s: [span] },
      ADMIN,
    );
    const list = await h.gql(
      '{ spans(filter: {sessionId: "gql-preview"}) { edges { node { spanId inputPreview { text truncated } outputPreview { text truncated } } } } }',
      {},
      viewerKey,
    );
    const node = list.data.spans.edges[0].node;
    expect(node.inputPreview.truncated).toBe(true);
    expect(node.inputPreview.text).toBe(JSON.stringify({ text: long }).slice(0, 256));
    expect(node.outputPreview).toEqual({ text: 'short', truncated: false });
    const one = await h.gql('{ span(spanId: "gql-preview-1") { inputArgs } }', {}, viewerKey);
    expect(one.data.span.inputArgs).toEqual({ text: long });
  });

  it('pages model prices as a connection, the same records as REST', async () => {
    const all = (await rest('GET', '/api/costs/models')).json() as { model_id: string }[];
    const first = await h.gql(
      '{ modelPricing(first: 2) { edges { node { modelId } } pageInfo { hasNextPage endCursor } } }',
      {},
      viewerKey,
    );
    const page = first.data.modelPricing;
    expect(page.edges.map((e: any) => e.node.modelId)).toEqual(
      all.slice(0, 2).map((m) => m.model_id),
    );
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await h.gql(
      'query($after: String) { modelPricing(first: 2, after: $after) { edges { node { modelId } } } }',
      { after: page.pageInfo.endCursor },
      viewerKey,
    );
    expect(next.data.modelPricing.edges.map((e: any) => e.node.modelId)).toEqual(
      all.slice(2, 4).map((m) => m.model_id),
    );
    const whole = await h.gql('{ modelPricing { edges { cursor } } }', {}, viewerKey);
    expect(whole.data.modelPricing.edges).toHaveLength(all.length);
    // Changing prices is for admins, decided by CostService whichever adapter asks.
    expect(
      (
        await h.gql(
          'mutation { addModelPricing(modelId: "v", input: {inputPer1mUsd: 1, outputPer1mUsd: 1}) { modelId } }',
          {},
          viewerKey,
        )
      ).errors[0].extensions.code,
    ).toBe('FORBIDDEN');
  });

  it('answers sessions and lineage with the same values as REST', async () => {
    const span = nativeSpan({ span_id: 'gql-session-1', session_id: 'gql-session' });
    await h.gql(
      'mutation($s: [JSON!]!) { ingestSpans(spans: $s) { accepted } }',
      { s: [span] },
      ADMIN,
    );
    const [restSession] = (await rest('GET', '/api/agents/sessions?limit=1000'))
      .json()
      .filter((x: { session_id: string }) => x.session_id === 'gql-session');
    const g = await h.gql(
      '{ session(sessionId: "gql-session") { session { sessionId toolCalls lastCallAt estCostUsd } tree { depth span { spanId } } } }',
      {},
      viewerKey,
    );
    expect(g.data.session.session).toEqual({
      sessionId: 'gql-session',
      toolCalls: restSession.tool_calls,
      lastCallAt: new Date(restSession.last_call_at).toISOString(),
      estCostUsd: restSession.est_cost_usd,
    });
    expect(g.data.session.tree).toEqual([{ depth: 0, span: { spanId: 'gql-session-1' } }]);
    const restLineage = (await rest('GET', '/api/agents/lineage')).json();
    const gLineage = await h.gql(
      '{ lineage { edges { source target avgLatencyMs } } }',
      {},
      viewerKey,
    );
    expect(gLineage.data.lineage.edges).toEqual(
      restLineage.edges.map((e: any) => ({
        source: e.source,
        target: e.target,
        avgLatencyMs: e.avg_latency_ms,
      })),
    );
  });

  it('takes one batch per request: aliases cannot multiply one body', async () => {
    const span = nativeSpan({ span_id: 'gql-alias-1' });
    const res = await h.gql(
      'mutation($s: [JSON!]!) { a: ingestSpans(spans: $s) { accepted } ...More } fragment More on Mutation { b: ingestSpans(spans: $s) { accepted } }',
      { s: [span] },
      ADMIN,
    );
    expect(res.errors[0].extensions.code).toBe('VALIDATION');
    expect((await rest('GET', '/api/traces/spans?session_id=gql-alias-1')).json()).toEqual([]);
  });

  it("a project-bound key finds only its project's spans", async () => {
    await h.gql('mutation { createProject(id: "other", name: "Other") { id } }', {}, ADMIN);
    const bound = (
      await h.gql(
        'mutation { createApiKey(input: {name: "bound", role: "admin", projectId: "other"}) { key } }',
        {},
        ADMIN,
      )
    ).data.createApiKey.key;
    expect(
      (await h.gql('{ span(spanId: "gql-ingest-1") { spanId } }', {}, bound)).errors[0].extensions
        .code,
    ).toBe('NOT_FOUND');
    expect(
      (await h.gql('{ span(spanId: "gql-ingest-1", projectId: "default") { spanId } }', {}, bound))
        .errors[0].extensions.code,
    ).toBe('FORBIDDEN');
  });
});

describe('Node', () => {
  it('node(id:) refetches every type that implements Node, and only for callers who may see it', async () => {
    const { data } = await h.gql('{ __type(name: "Node") { possibleTypes { name } } }', {}, ADMIN);
    const types = data.__type.possibleTypes.map((t: { name: string }) => t.name).sort();
    // One query per type that gives a nodeId of an existing object.
    const sample: Record<string, string> = {
      ApiKey: '{ apiKeys { nodeId } }',
      Project: '{ projects { nodeId } }',
      Session: '{ sessions(first: 1) { edges { node { nodeId } } } }',
      Span: '{ spans(first: 1) { edges { node { nodeId } } } }',
      User: '{ users { nodeId } }',
    };
    const firstNodeId = (data: Record<string, any>): string | undefined => {
      const value = Object.values(data)[0];
      return Array.isArray(value) ? value[0]?.nodeId : value.edges[0]?.node.nodeId;
    };
    await h.gql('mutation { inviteUser(email: "node@example.com") { inviteToken } }', {}, ADMIN);
    expect(types).toEqual(Object.keys(sample).sort());
    for (const type of types) {
      const listed = await h.gql(sample[type] as string, {}, ADMIN);
      const nodeId = firstNodeId(listed.data);
      expect(nodeId, type).toBeTruthy();
      const back = await h.gql(
        'query($id: ID!) { node(id: $id) { __typename nodeId } }',
        { id: nodeId },
        ADMIN,
      );
      expect(back.data.node, type).toEqual({ __typename: type, nodeId });
    }
    // A malformed or unknown id is the client's error, not the server's.
    expect(
      (await h.gql('{ node(id: "garbage") { nodeId } }', {}, ADMIN)).errors[0].extensions.code,
    ).toBe('BAD_USER_INPUT');
    const unknownType = Buffer.from('Nope:1').toString('base64');
    expect(
      (await h.gql('query($id: ID!) { node(id: $id) { nodeId } }', { id: unknownType }, ADMIN))
        .errors[0].extensions.code,
    ).toBe('BAD_USER_INPUT');
    const user = (await h.gql('{ users { nodeId } }', {}, ADMIN)).data.users[0].nodeId;
    expect(
      (await h.gql('query($id: ID!) { node(id: $id) { nodeId } }', { id: user }, viewerKey))
        .errors[0].extensions.code,
    ).toBe('FORBIDDEN');
    // A key bound to another project cannot refetch a span of the default project by its global id.
    const span = firstNodeId((await h.gql(sample.Span as string, {}, ADMIN)).data);
    const bound = (
      await h.gql(
        'mutation { createApiKey(input: {name: "node-bound", role: "viewer", projectId: "other"}) { key } }',
        {},
        ADMIN,
      )
    ).data.createApiKey.key;
    expect(
      (await h.gql('query($id: ID!) { node(id: $id) { nodeId } }', { id: span }, bound)).errors[0]
        .extensions.code,
    ).toBe('FORBIDDEN');
    expect(
      (
        await h.gql(
          'query($id: ID!) { node(id: $id) { ... on Span { spanId inputArgs } } }',
          { id: span },
          viewerKey,
        )
      ).data.node.spanId,
    ).toBeTruthy();
  });

  it('pages health history, drift history, SLOs and anomalies as connections', async () => {
    const at = (min: number) => new Date(Date.UTC(2026, 0, 1, 0, min));
    for (const min of [1, 2, 3])
      await saveCheck(h.services.store.db, {
        result: {
          id: `conn-${min}`,
          projectId: 'default',
          serverName: 'conn',
          status: 'up',
          latencyMs: 1,
          toolsCount: 1,
          schemaHash: 'a'.repeat(64),
          error: null,
          checkedAt: at(min),
          schemaDrift: false,
          transport: 'stdio',
          serverInfo: null,
          protocolVersion: null,
        },
        instructions: null,
        tools: null,
        drift: null,
      });
    const page = (after: string | null) =>
      h.gql(
        'query($after: String) { healthHistoryConnection(name: "conn", first: 2, after: $after) { edges { node { checkedAt } } pageInfo { hasNextPage endCursor } } }',
        { after },
        viewerKey,
      );
    const first = (await page(null)).data.healthHistoryConnection;
    const second = (await page(first.pageInfo.endCursor)).data.healthHistoryConnection;
    const times = [...first.edges, ...second.edges].map(
      (e: { node: { checkedAt: string } }) => e.node.checkedAt,
    );
    expect([first.pageInfo.hasNextPage, second.pageInfo.hasNextPage]).toEqual([true, false]);
    // The same results, in the same order, as REST's list.
    expect(times).toEqual(
      (await rest('GET', '/api/health/servers/conn/history', undefined, viewerKey))
        .json()
        .map((r: { checked_at: string }) => r.checked_at),
    );
    expect(times).toEqual([at(3), at(2), at(1)].map((d) => d.toISOString()));
    const forged = await h.gql(
      '{ driftHistoryConnection(name: "conn", after: "bm90IGEgY3Vyc29y") { edges { cursor } } }',
      {},
      viewerKey,
    );
    expect(forged.errors[0].extensions.code).toBe('VALIDATION');

    for (const agent of ['conn-a', 'conn-b'])
      await h.gql(
        'mutation($agent: String!) { createSlo(input: {agentName: $agent, metric: "success_rate", threshold: 99}) { sloId } }',
        { agent },
        ADMIN,
      );
    const denied = await h.gql(
      'mutation { createSlo(input: {agentName: "x", metric: "success_rate", threshold: 99}) { sloId } }',
      {},
      viewerKey,
    );
    expect(denied.errors[0].extensions.code).toBe('FORBIDDEN');
    const slos = (
      await h.gql(
        '{ slosConnection(first: 1) { edges { node { agentName } } pageInfo { hasNextPage } } }',
        {},
        viewerKey,
      )
    ).data.slosConnection;
    expect(slos.edges).toHaveLength(1);
    expect(slos.pageInfo.hasNextPage).toBe(true);
    expect(
      (await h.gql('{ anomaliesConnection(first: 5) { edges { cursor } } }', {}, viewerKey)).data
        .anomaliesConnection.edges,
    ).toEqual([]);
  });
});

describe('GraphQL connections and policy in the services', () => {
  it('pages users and API keys as connections, filtered, with the same rules as the lists', async () => {
    await h.gql('mutation { inviteUser(email: "conn-a@example.com") { inviteToken } }', {}, ADMIN);
    await h.gql('mutation { inviteUser(email: "conn-b@example.com") { inviteToken } }', {}, ADMIN);
    const first = await h.gql(
      '{ usersConnection(first: 1, status: "invited") { edges { node { email status } } pageInfo { hasNextPage endCursor } } }',
      {},
      ADMIN,
    );
    expect(first.data.usersConnection.edges).toHaveLength(1);
    expect(first.data.usersConnection.edges[0].node.status).toBe('invited');
    expect(first.data.usersConnection.pageInfo.hasNextPage).toBe(true);
    const rest = await h.gql(
      'query($after: String) { usersConnection(first: 100, after: $after, status: "invited") { edges { node { email } } } }',
      { after: first.data.usersConnection.pageInfo.endCursor },
      ADMIN,
    );
    const emails = [first, rest].flatMap((r) =>
      r.data.usersConnection.edges.map((e: { node: { email: string } }) => e.node.email),
    );
    expect(emails).toEqual(expect.arrayContaining(['conn-a@example.com', 'conn-b@example.com']));
    expect(new Set(emails).size).toBe(emails.length);
    expect(
      (await h.gql('{ usersConnection { edges { cursor } } }', {}, viewerKey)).errors[0].extensions
        .code,
    ).toBe('FORBIDDEN');

    const created = await h.gql(
      'mutation { createApiKey(input: {name: "conn-key"}) { apiKey { id } } }',
      {},
      ADMIN,
    );
    const id = created.data.createApiKey.apiKey.id;
    await h.gql('mutation($id: String!) { revokeApiKey(id: $id) { id } }', { id }, ADMIN);
    const ids = async (includeRevoked: boolean) =>
      (
        await h.gql(
          'query($r: Boolean) { apiKeysConnection(first: 200, includeRevoked: $r) { edges { node { id } } } }',
          { r: includeRevoked },
          ADMIN,
        )
      ).data.apiKeysConnection.edges.map((e: { node: { id: string } }) => e.node.id);
    expect(await ids(true)).toContain(id);
    expect(await ids(false)).not.toContain(id);
    expect(
      (await h.gql('{ apiKeysConnection { edges { cursor } } }', {}, viewerKey)).errors[0]
        .extensions.code,
    ).toBe('FORBIDDEN');
  });

  it('filters the audit log by action, actor and result, in GraphQL and REST alike', async () => {
    const gql = await h.gql(
      '{ auditLog(first: 200, action: "api_key.created") { edges { node { action actor result } } } }',
      {},
      ADMIN,
    );
    const nodes = gql.data.auditLog.edges.map((e: { node: unknown }) => e.node);
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((n: { action: string }) => n.action === 'api_key.created')).toBe(true);
    const viaRest = (
      await rest('GET', '/api/audit/logs?limit=200&action=api_key.created')
    ).json() as { action: string }[];
    expect(viaRest).toHaveLength(nodes.length);
    expect((await rest('GET', '/api/audit/logs?result=failure&actor=nobody')).json()).toEqual([]);
    expect((await rest('GET', '/api/audit/logs?result=maybe')).statusCode).toBe(422);
    expect(
      (await h.gql('{ auditLog(result: "maybe") { edges { cursor } } }', {}, ADMIN)).errors[0]
        .extensions.code,
    ).toBe('VALIDATION');
  });

  it('records a settings change once, whichever adapter makes it', async () => {
    const count = async () =>
      ((await rest('GET', '/api/audit/logs?limit=200&action=settings.updated')).json() as unknown[])
        .length;
    const before = await count();
    await h.gql('mutation { updateSettings(redactPayloads: false) { redactPayloads } }', {}, ADMIN);
    expect(await count()).toBe(before + 1);
    expect((await rest('PUT', '/api/settings', { redact_payloads: false })).statusCode).toBe(200);
    expect(await count()).toBe(before + 2);
    expect((await rest('PUT', '/api/settings', { redact_payloads: 'yes' })).json()).toEqual({
      detail: [
        {
          loc: ['body', 'redact_payloads'],
          msg: 'Input should be a valid boolean',
          type: 'bool_type',
        },
      ],
    });
    expect(
      (
        await h.gql(
          'mutation { updateSettings(redactPayloads: true) { redactPayloads } }',
          {},
          viewerKey,
        )
      ).errors[0].extensions.code,
    ).toBe('FORBIDDEN');
    expect(await count()).toBe(before + 2);
  });
});
