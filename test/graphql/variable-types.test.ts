import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, createKey } from '../helpers/auth.ts';
import { captureLog, type CapturedLog } from '../helpers/log-capture.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { postJson } from '../helpers/spans.ts';

const ADMIN = bootstrapKey();
let server: InProcessApp;
let log: CapturedLog;
let viewer: string;

beforeAll(async () => {
  log = captureLog('info');
  server = await startInProcessApp(
    { SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' },
    log.logger,
  );
  viewer = (await createKey(server.httpUrl, ADMIN, { role: 'viewer' })).key;
});
afterAll(async () => server?.close());

const gql = (key: string, query: string, variables: Record<string, unknown>) =>
  postJson(`${server.httpUrl}/graphql`, { query, variables }, { 'x-api-key': key });
const errorLogs = () => log.lines.filter((l) => l.level >= 50);

/** Operations with one variable each, the variable's declared type, and who may run them. */
const OPERATIONS: { key: () => string; query: string; type: string }[] = [
  {
    key: () => viewer,
    type: 'String',
    query: 'query($v: String) { costBreakdown(window: $v) { totalCostUsd } }',
  },
  {
    key: () => viewer,
    type: 'Int',
    query: 'query($v: Int) { spans(first: $v) { edges { node { spanId } } } }',
  },
  {
    key: () => viewer,
    type: 'String!',
    query: 'query($v: String!) { scorecard(name: $v) { grade } }',
  },
  {
    key: () => viewer,
    type: 'DateTime',
    query: 'query($v: DateTime) { lineage(since: $v) { nodes { id } } }',
  },
  {
    key: () => viewer,
    type: 'SpanFilter',
    query: 'query($v: SpanFilter) { spans(filter: $v, first: 1) { edges { node { spanId } } } }',
  },
  {
    key: () => viewer,
    type: 'Int',
    query: 'query($v: Int) { healthHistory(name: "x", limit: $v) { serverName } }',
  },
  {
    key: () => ADMIN,
    type: 'SloInput!',
    query: 'mutation($v: SloInput!) { createSlo(input: $v) { sloId } }',
  },
  {
    key: () => ADMIN,
    type: 'Boolean',
    query: 'mutation($v: Boolean) { updateSettings(redactPayloads: $v) { redactPayloads } }',
  },
  {
    key: () => ADMIN,
    type: 'Int!',
    query: 'mutation($v: Int!) { snoozeAlert(id: "a", minutes: $v) { id } }',
  },
  {
    key: () => ADMIN,
    type: 'ModelPricingInput!',
    query:
      'mutation($v: ModelPricingInput!) { addModelPricing(modelId: "m", input: $v) { modelId } }',
  },
];

/** Values of the wrong type for each declared type (every one is refused by variable coercion). */
function wrongValues(type: string, rnd: () => number): unknown[] {
  const n = Math.floor(rnd() * 1e6);
  const common: unknown[] = [{}, [1, 2], { nested: { deeper: [n] } }, [[[]]]];
  switch (type.replace(/!$/, '')) {
    case 'String':
      return [...common, n, -n - 0.5, true, false];
    case 'Int':
      return [...common, `${n}`, 1.5 + n, 2 ** 40 + n, true, 'NaN', ''];
    case 'Boolean':
      return [...common, n, 'true', 'yes', 0];
    case 'DateTime':
      return [...common.slice(0, 1), `not a date ${n}`, true, 'yesterday'];
    case 'SpanFilter':
      return [
        ...common.slice(1),
        n,
        'x',
        true,
        { since: n },
        { agentName: n },
        { unknownField: 1 },
      ];
    case 'SloInput':
      return [
        n,
        'x',
        [],
        { agentName: 'a', metric: 'latency_p99' },
        { agentName: n, metric: 'latency_p99', threshold: 1 },
        { agentName: 'a', metric: 'x', threshold: 'high' },
        { agentName: 'a', metric: 'x', threshold: 1, windowHours: 1.5 },
      ];
    case 'ModelPricingInput':
      return [
        n,
        'x',
        { inputPer1mUsd: 'cheap' },
        { effectiveFrom: `never ${n}` },
        { provider: n },
        { extra: true },
      ];
    default:
      throw new Error(`no wrong values for ${type}`);
  }
}

describe('GraphQL variables of the wrong type', () => {
  it("are the client's error (BAD_USER_INPUT), never an internal error or an error-level log", async () => {
    const rnd = mulberry32(25);
    const values = OPERATIONS.map((op) => ({ op, values: wrongValues(op.type, rnd) }));
    const missingRequired = OPERATIONS.filter((op) => op.type.endsWith('!')).map((op) => ({
      op,
      values: [null, undefined],
    }));
    let cases = 0;
    for (const { op, values: vs } of [...values, ...missingRequired]) {
      for (const v of vs) {
        const res = await gql(op.key(), op.query, v === undefined ? {} : { v });
        const what = `${op.query} with ${JSON.stringify(v)}: ${res.text}`;
        expect(res.json?.errors?.length, what).toBeGreaterThan(0);
        expect(
          res.json.errors.map((e: any) => e.extensions?.code),
          what,
        ).toEqual(res.json.errors.map(() => 'BAD_USER_INPUT'));
        expect(res.json.errors[0].message, what).toMatch(/^Variable "\$v"/);
        expect(res.json.data ?? null, what).toBeNull();
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(60);
    expect(errorLogs()).toEqual([]);
  });

  it('still runs the same operations with values of the right type', async () => {
    const res = await gql(viewer, OPERATIONS[0]!.query, { v: '7d' });
    expect(res.json.errors).toBeUndefined();
    expect(res.json.data.costBreakdown.totalCostUsd).toBe(0);
  });
});
