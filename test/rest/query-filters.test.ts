import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEALTH_TAGS, SPAN_TYPES } from '../../src/model/span.ts';
import { bootstrapKey, call } from '../helpers/auth.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Unknown values of enum filters are a mistake the caller should hear about (422 naming the
 * parameter and the allowed values), not an empty 200 that reads as "nothing happened"; and the
 * metrics path label names path parameters `{id}` (docs/api.md#metrics).
 */

const ADMIN = bootstrapKey();
const METRICS_TOKEN = 'metrics-token-for-the-test';

describe('enum filters and metric path labels', () => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({
      SPYGLASS_API_KEYS: ADMIN,
      SPYGLASS_RATE_LIMITS: 'off',
      SPYGLASS_METRICS_TOKEN: METRICS_TOKEN,
    });
    base = server.httpUrl;
  });
  afterAll(async () => server?.dispose());

  it.each([
    [
      '/api/traces/spans?status=failed',
      'status',
      "Input should be 'success', 'error', 'timeout', 'prevented'",
    ],
    [
      '/api/traces/spans?span_type=tool',
      'span_type',
      `Input should be ${SPAN_TYPES.map((t) => `'${t}'`).join(', ')}`,
    ],
    [
      '/api/agents/sessions?health_tag=broken',
      'health_tag',
      `Input should be ${HEALTH_TAGS.map((t) => `'${t}'`).join(', ')}`,
    ],
  ])('%s → 422 naming %s and its values', async (path, name, msg) => {
    const r = await call(base, 'GET', path, { key: ADMIN });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ detail: [{ loc: ['query', name], msg, type: 'enum' }] });
  });

  it('known values still filter', async () => {
    expect(
      (
        await call(base, 'GET', '/api/traces/spans?status=error&span_type=tool_call', {
          key: ADMIN,
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(base, 'GET', '/api/agents/sessions?health_tag=tool_failure', { key: ADMIN }))
        .status,
    ).toBe(200);
  });

  it('spyglass sessions --tag with an unknown tag fails and lists the tags', async () => {
    const bad = await runCliInProcess([
      'sessions',
      '--tag',
      'broken',
      '--url',
      base,
      '--api-key',
      ADMIN,
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("argument 'broken' is invalid");
    expect(bad.stderr).toContain('tool_failure');
    const good = await runCliInProcess([
      'sessions',
      '--tag',
      'tool_failure',
      '--json',
      '--url',
      base,
      '--api-key',
      ADMIN,
    ]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual([]);
  });

  it('the metrics path label is the route with {id} for every path parameter', async () => {
    await call(base, 'GET', '/api/projects/some-project', { key: ADMIN });
    await call(base, 'GET', '/api/health/servers/filesystem/history', { key: ADMIN });
    const text = (
      await call(base, 'GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text;
    expect(text).toContain(
      'spyglass_http_requests_total{method="GET",path="/api/projects/{id}",status="404"} 1',
    );
    expect(text).toContain('path="/api/health/servers/{id}/history"');
    expect(text).not.toMatch(/path="[^"]*\{(project_id|name|session_id)\}/);
  });
});
