import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** CatalogEntry.scorecard: the grade of every catalogued server, observed-only ones included (docs/ui.md#servers). */
const ADMIN = `sg_${'d'.repeat(64)}`;
let h: InProcessApp;

const LIST = `query ($p: String) {
  servers(projectId: $p) { name projectId scorecard { serverName projectId grade dimensions { name } } }
  agents(projectId: $p) { name scorecard { grade } }
}`;

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  const made = await h.gql(
    'mutation { createProject(id: "other", name: "Other") { id } }',
    {},
    ADMIN,
  );
  expect(made.errors).toBeUndefined();
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/traces/spans',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    payload: JSON.stringify([
      nativeSpan({ server_name: 'seen-only' }),
      nativeSpan({ server_name: 'seen-only', status: 'error', error: 'boom', output_result: null }),
      nativeSpan({ project_id: 'other', server_name: 'elsewhere', session_id: 'o-1' }),
    ]),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
});
afterAll(async () => h?.close());

describe('CatalogEntry.scorecard', () => {
  it('grades a server only seen in spans, per project; agents have none', async () => {
    // Catalog registration follows ingest asynchronously (docs/ingest.md#derived-data).
    await expect
      .poll(async () => (await h.gql(LIST, { p: 'default' }, ADMIN)).data?.servers.length)
      .toBe(1);
    const mine = await h.gql(LIST, { p: 'default' }, ADMIN);
    expect(mine.errors).toBeUndefined();
    const [entry] = mine.data.servers;
    expect(entry).toMatchObject({
      name: 'seen-only',
      scorecard: { serverName: 'seen-only', projectId: 'default' },
    });
    expect(entry.scorecard.grade).toMatch(/^(A\+|A|B|C|D|F)$/);
    expect(entry.scorecard.dimensions.map((d: { name: string }) => d.name)).toEqual([
      'availability',
      'security',
      'reliability',
      'schema_stability',
      'performance',
    ]);
    expect(mine.data.agents).toEqual([{ name: 'planner', scorecard: null }]);

    await expect
      .poll(async () => (await h.gql(LIST, { p: 'other' }, ADMIN)).data?.servers.length)
      .toBe(1);
    const other = await h.gql(LIST, { p: 'other' }, ADMIN);
    expect(other.data.servers[0].scorecard).toMatchObject({
      serverName: 'elsewhere',
      projectId: 'other',
    });
  });
});
