import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

const ADMIN = `sg_${'f'.repeat(64)}`;
let server: InProcessApp;
let viewer: string;
let p2Admin: string;

const api = (method: string, path: string, body?: unknown, key = ADMIN) =>
  call(server.httpUrl, method, path, { key, body });
const models = async (query = '', key = ADMIN) =>
  expectStatus(await api('GET', `/api/costs/models${query}`, undefined, key), 200, 'models')
    .json as any[];
const gql = async (query: string, key = ADMIN) =>
  (await api('POST', '/graphql', { query }, key)).json;

/** Ingests one LLM span and returns the cost stored for it. */
async function costOf(
  model: string,
  project = 'default',
  startedAt = new Date(),
): Promise<{ cost_usd: number; cost_estimated: boolean }> {
  const span = nativeSpan({
    span_type: 'agent',
    server_name: 'planner',
    tool_name: 'plan',
    model_id: model,
    input_tokens: 1_000_000,
    output_tokens: 1_000_000,
    project_id: project,
    session_id: null,
    trace_id: null,
    started_at: startedAt.toISOString(),
    ended_at: new Date(startedAt.getTime() + 10).toISOString(),
  });
  expectStatus(await api('POST', '/api/traces/spans', [span]), 202, 'ingest');
  const got = expectStatus(
    await api('GET', `/api/traces/spans?project_id=${project}&limit=1000`),
    200,
    'spans',
  ).json as any[];
  return got.find((s) => s.span_id === span.span_id);
}

beforeAll(async () => {
  server = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  viewer = (await createKey(server.httpUrl, ADMIN, { role: 'viewer' })).key;
  await createProject(server.httpUrl, ADMIN, 'p2');
  p2Admin = (await createKey(server.httpUrl, ADMIN, { role: 'admin', project_id: 'p2' })).key;
}, 180_000); // starting PGlite and ingesting takes long on a loaded 2-core machine
afterAll(async () => server?.close());

describe('model pricing', () => {
  it('lists the shipped defaults; unknown models cost 10 / 30 per 1M, estimated', async () => {
    const list = await models('', viewer);
    expect(list.find((m) => m.model_id === 'gpt-4o')).toMatchObject({
      provider: 'openai',
      input_per_1m_usd: 2.5,
      output_per_1m_usd: 10,
      source: 'default',
      effective_from: null,
      estimated: false,
    });
    expect(list.find((m) => m.model_id === 'claude-sonnet-4')).toMatchObject({
      provider: 'anthropic',
      cache_read_per_1m_usd: 0.3,
      cache_write_per_1m_usd: 3.75,
    });
    expect(await costOf('openai/gpt-4o-mini-2024-07-18')).toMatchObject({
      cost_usd: 0.75,
      cost_estimated: false,
    });
    expect(await costOf('acme-llm-7')).toMatchObject({ cost_usd: 40, cost_estimated: true });
  });

  it('adds custom pricing that the next span is priced with, and audits it', async () => {
    const r = expectStatus(
      await api('POST', '/api/costs/models', {
        model_id: 'ACME-LLM',
        provider: 'acme',
        input_per_1m_usd: 1,
        output_per_1m_usd: 2,
      }),
      201,
      'add',
    );
    expect(r.json).toMatchObject({
      model_id: 'acme-llm',
      provider: 'acme',
      input_per_1m_usd: 1,
      output_per_1m_usd: 2,
      cache_read_per_1m_usd: null,
      source: 'custom',
    });
    expect(Date.now() - Date.parse(r.json.effective_from)).toBeLessThan(60_000);
    expect(await costOf('acme-llm-7')).toMatchObject({ cost_usd: 3, cost_estimated: false });
    await server.services.audit.flush();
    const entries = await auditLogs(server.httpUrl, ADMIN);
    expect(
      entries.find(
        (e) =>
          e.action === 'model_pricing.updated' &&
          e.resource.startsWith('model_pricing:acme-llm:added'),
      ),
    ).toBeDefined();
  });

  it('PATCH adds a dated record: history keeps both, the current price is the new one', async () => {
    const from = new Date(Date.now() - 60_000);
    expectStatus(
      await api('PATCH', '/api/costs/models/gpt-4o', {
        output_per_1m_usd: 12,
        effective_from: from.toISOString(),
      }),
      200,
      'patch',
    );
    const now = (await models()).filter((m) => m.model_id === 'gpt-4o');
    expect(now).toEqual([
      expect.objectContaining({
        input_per_1m_usd: 2.5,
        output_per_1m_usd: 12,
        provider: 'openai',
        source: 'custom',
        effective_from: from.toISOString(),
      }),
    ]);
    const history = (await models('?history=true')).filter((m) => m.model_id === 'gpt-4o');
    expect(history.map((m) => [m.source, m.output_per_1m_usd])).toEqual([
      ['default', 10],
      ['custom', 12],
    ]);
    // A span that started before the change keeps the old price; one after gets the new.
    expect((await costOf('gpt-4o', 'default', new Date(from.getTime() - 1000))).cost_usd).toBe(
      12.5,
    );
    expect((await costOf('gpt-4o', 'default', new Date(from.getTime() + 1000))).cost_usd).toBe(
      14.5,
    );
    expect(
      (await api('PATCH', '/api/costs/models/never-heard-of-it', { input_per_1m_usd: 1 })).status,
    ).toBe(404);
  });

  it('DELETE removes the custom records; the default applies again', async () => {
    expect(
      expectStatus(await api('DELETE', '/api/costs/models/gpt-4o'), 200, 'delete').json,
    ).toEqual({ model_id: 'gpt-4o', removed: 1 });
    expect((await models()).find((m) => m.model_id === 'gpt-4o')).toMatchObject({
      output_per_1m_usd: 10,
      source: 'default',
    });
    expect((await costOf('gpt-4o')).cost_usd).toBe(12.5);
    expect((await api('DELETE', '/api/costs/models/gpt-4o')).status).toBe(404);
  });

  it('is read-only for viewers', async () => {
    expect(
      (
        await api(
          'POST',
          '/api/costs/models',
          { model_id: 'x', input_per_1m_usd: 1, output_per_1m_usd: 1 },
          viewer,
        )
      ).status,
    ).toBe(403);
    expect(
      (await api('PATCH', '/api/costs/models/acme-llm', { input_per_1m_usd: 0 }, viewer)).status,
    ).toBe(403);
    expect((await api('DELETE', '/api/costs/models/acme-llm', undefined, viewer)).status).toBe(403);
    expect(
      (await gql('mutation { deleteModelPricing(modelId: "acme-llm") }', viewer)).errors[0]
        .extensions.status,
    ).toBe(403);
    expect((await models()).find((m) => m.model_id === 'acme-llm')).toMatchObject({
      input_per_1m_usd: 1,
    });
  });

  it("keeps tenants apart: a project-bound admin changes only its own project's prices", async () => {
    expectStatus(
      await api('PATCH', '/api/costs/models/gpt-4o', { input_per_1m_usd: 100 }, p2Admin),
      200,
      'p2 patch',
    );
    expect(
      (
        await api(
          'PATCH',
          '/api/costs/models/gpt-4o?project_id=default',
          { input_per_1m_usd: 100 },
          p2Admin,
        )
      ).status,
    ).toBe(403);
    expect((await models('', p2Admin)).find((m) => m.model_id === 'gpt-4o')).toMatchObject({
      input_per_1m_usd: 100,
      source: 'custom',
    });
    expect((await models()).find((m) => m.model_id === 'gpt-4o')).toMatchObject({
      input_per_1m_usd: 2.5,
      source: 'default',
    });
    expect((await costOf('gpt-4o', 'p2')).cost_usd).toBe(110);
    expect((await costOf('gpt-4o', 'default')).cost_usd).toBe(12.5);
    // Deleting the project deletes its prices: a project of that id starts from the defaults.
    expectStatus(await api('DELETE', '/api/projects/p2'), 204, 'delete project');
    await createProject(server.httpUrl, ADMIN, 'p2');
    expect((await models('?project_id=p2')).find((m) => m.model_id === 'gpt-4o')).toMatchObject({
      input_per_1m_usd: 2.5,
      source: 'default',
    });
  });

  it('refuses bad input with 422 naming the field, and stores nothing', async () => {
    const cases: [string, string, unknown, (string | number)[]][] = [
      [
        'POST',
        '/api/costs/models',
        { input_per_1m_usd: 1, output_per_1m_usd: 1 },
        ['body', 'model_id'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: '', input_per_1m_usd: 1, output_per_1m_usd: 1 },
        ['body', 'model_id'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: '   ', input_per_1m_usd: 1, output_per_1m_usd: 1 },
        ['body', 'model_id'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'm'.repeat(101), input_per_1m_usd: 1, output_per_1m_usd: 1 },
        ['body', 'model_id'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 42, input_per_1m_usd: 1, output_per_1m_usd: 1 },
        ['body', 'model_id'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'fuzz', input_per_1m_usd: -1, output_per_1m_usd: 1 },
        ['body', 'input_per_1m_usd'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'fuzz', input_per_1m_usd: 'NaN', output_per_1m_usd: 1 },
        ['body', 'input_per_1m_usd'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'fuzz', input_per_1m_usd: 1 },
        ['body', 'output_per_1m_usd'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'fuzz', input_per_1m_usd: 1, output_per_1m_usd: 1e300 },
        ['body', 'output_per_1m_usd'],
      ],
      [
        'POST',
        '/api/costs/models',
        {
          model_id: 'fuzz',
          input_per_1m_usd: 1,
          output_per_1m_usd: 1,
          cache_read_per_1m_usd: -0.5,
        },
        ['body', 'cache_read_per_1m_usd'],
      ],
      [
        'POST',
        '/api/costs/models',
        {
          model_id: 'fuzz',
          input_per_1m_usd: 1,
          output_per_1m_usd: 1,
          effective_from: 'yesterday-ish',
        },
        ['body', 'effective_from'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'fuzz', input_per_1m_usd: 1, output_per_1m_usd: 1, effective_from: 12 },
        ['body', 'effective_from'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'fuzz', input_per_1m_usd: 1, output_per_1m_usd: 1, provider: '' },
        ['body', 'provider'],
      ],
      [
        'POST',
        '/api/costs/models',
        { model_id: 'fuzz', input_per_1m_usd: 1, output_per_1m_usd: 1, price: 3 },
        ['body', 'price'],
      ],
      ['POST', '/api/costs/models', [1, 2], ['body']],
      [
        'PATCH',
        '/api/costs/models/acme-llm',
        { input_per_1m_usd: null },
        ['body', 'input_per_1m_usd'],
      ],
      [
        'PATCH',
        '/api/costs/models/acme-llm',
        { output_per_1m_usd: true },
        ['body', 'output_per_1m_usd'],
      ],
      [
        'PATCH',
        '/api/costs/models/acme-llm',
        { effective_from: '2026-13-45T00:00:00Z' },
        ['body', 'effective_from'],
      ],
    ];
    for (const [method, path, body, loc] of cases) {
      const r = await api(method, path, body);
      expect([r.status, JSON.stringify(body)]).toEqual([422, JSON.stringify(body)]);
      expect(r.json.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    expect(
      (await models('?history=true')).filter(
        (m) => m.model_id === 'fuzz' || m.model_id === 'acme-llm',
      ),
    ).toHaveLength(1);
  });

  it('lists every problem of a body in one 422; a PATCH without a body keeps the values', async () => {
    const r = await api('POST', '/api/costs/models', {
      model_id: '   ',
      input_per_1m_usd: -1,
      output_per_1m_usd: '2',
      price: 3,
    });
    expect(r.status).toBe(422);
    expect(r.json.detail.map((d: any) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'model_id'],
        ['body', 'input_per_1m_usd'],
        ['body', 'output_per_1m_usd'],
        ['body', 'price'],
      ]),
    );
    expectStatus(
      await api('POST', '/api/costs/models', {
        model_id: 'no-body-model',
        input_per_1m_usd: 1,
        output_per_1m_usd: 2,
      }),
      201,
      'add',
    );
    const same = expectStatus(await api('PATCH', '/api/costs/models/no-body-model'), 200, 'patch');
    expect(same.json).toMatchObject({ input_per_1m_usd: 1, output_per_1m_usd: 2 });
  });

  it('works the same over GraphQL', async () => {
    const add = await gql(
      'mutation { addModelPricing(modelId: "gql-model", input: {provider: "acme", inputPer1mUsd: 3, outputPer1mUsd: 4, cacheReadPer1mUsd: 0.3}) { modelId provider inputPer1mUsd cacheReadPer1mUsd source estimated } }',
    );
    expect(add.data.addModelPricing).toEqual({
      modelId: 'gql-model',
      provider: 'acme',
      inputPer1mUsd: 3,
      cacheReadPer1mUsd: 0.3,
      source: 'custom',
      estimated: false,
    });
    const upd = await gql(
      'mutation { updateModelPricing(modelId: "gql-model", input: {outputPer1mUsd: 5, cacheReadPer1mUsd: null}) { inputPer1mUsd outputPer1mUsd cacheReadPer1mUsd } }',
    );
    expect(upd.data.updateModelPricing).toEqual({
      inputPer1mUsd: 3,
      outputPer1mUsd: 5,
      cacheReadPer1mUsd: null,
    });
    const list = await gql(
      '{ modelPricing(history: true) { edges { node { modelId outputPer1mUsd effectiveFrom } } } }',
    );
    expect(
      list.data.modelPricing.edges
        .map((e: any) => e.node)
        .filter((m: any) => m.modelId === 'gql-model')
        .map((m: any) => m.outputPer1mUsd),
    ).toEqual([4, 5]);
    const bad = await gql(
      'mutation { addModelPricing(modelId: "neg", input: {inputPer1mUsd: -1, outputPer1mUsd: 1}) { modelId } }',
    );
    expect(bad.errors[0].extensions).toMatchObject({
      status: 422,
      issues: [{ loc: ['body', 'input_per_1m_usd'] }],
    });
    expect((await gql('mutation { deleteModelPricing(modelId: "gql-model") }')).data).toEqual({
      deleteModelPricing: 2,
    });
  });
});
