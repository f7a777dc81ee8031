import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** costSeries and costBreakdown's since/until (docs/costs.md#graphql): hourly, bounded, project-scoped. */
const ADMIN = `sg_${'d'.repeat(64)}`;
const HOUR = 3_600_000;
const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
/** 10 minutes into the hour `hoursAgo` hours before the current one. */
const at = (hoursAgo: number, plusMs = 0) =>
  new Date(hourStart - hoursAgo * HOUR + 600_000 + plusMs).toISOString();

const llm = (hoursAgo: number, tokens: number, project?: string) =>
  nativeSpan({
    session_id: `s-${hoursAgo}`,
    span_type: 'agent',
    model_id: 'gpt-4o',
    input_tokens: tokens,
    output_tokens: 0,
    started_at: at(hoursAgo),
    ended_at: at(hoursAgo, 100),
    ...(project ? { project_id: project } : {}),
  });
const tool = (hoursAgo: number) =>
  nativeSpan({
    session_id: `s-${hoursAgo}`,
    server_name: 'github',
    tool_name: 'create_issue',
    started_at: at(hoursAgo),
    ended_at: at(hoursAgo, 50),
  });

const SERIES = `query($window: String, $since: DateTime, $until: DateTime, $projectId: String) {
  costSeries(window: $window, since: $since, until: $until, projectId: $projectId) {
    window since until points { at llmCostUsd toolCostUsd costUsd }
  }
}`;
const BREAKDOWN = `query($window: String, $since: DateTime, $until: DateTime) {
  costBreakdown(window: $window, since: $since, until: $until) { window since until totalCostUsd llmCostUsd toolCostUsd }
}`;

let h: InProcessApp;
let config: { path: string; remove(): void };

beforeAll(async () => {
  config = configFile(
    'costs:\n  rules:\n    - server: github\n      tool: "create_*"\n      cost_usd: 0.01\n',
  );
  h = await startInProcessApp({
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
    SPYGLASS_CONFIG: config.path,
  });
  const made = await h.gql(
    'mutation { createProject(id: "other", name: "Other") { id } }',
    {},
    ADMIN,
  );
  expect(made.errors).toBeUndefined();
  // gpt-4o input is 2.50 per 1M: 1M tokens cost 2.5.
  const spans = [llm(0, 1_000_000), tool(0), llm(3, 400_000), tool(30), llm(2, 1_000_000, 'other')];
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/traces/spans',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    payload: JSON.stringify(spans),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
});
afterAll(async () => {
  await h?.close();
  config?.remove();
});

describe('costSeries', () => {
  it('answers one zero-filled point per hour of the window, LLM and tool apart', async () => {
    const r = await h.gql(SERIES, { window: '24h' }, ADMIN);
    expect(r.errors).toBeUndefined();
    const s = r.data.costSeries;
    expect(s.window).toBe('24h');
    expect(s.points).toHaveLength(24);
    expect(new Date(s.points[0].at).getTime()).toBe(new Date(s.since).getTime());
    const byHour = new Map<number, any>(s.points.map((p: any) => [new Date(p.at).getTime(), p]));
    expect(byHour.get(hourStart)).toEqual({
      at: new Date(hourStart).toISOString(),
      llmCostUsd: 2.5,
      toolCostUsd: 0.01,
      costUsd: 2.51,
    });
    expect(byHour.get(hourStart - 3 * HOUR)?.llmCostUsd).toBe(1);
    const total = s.points.reduce((a: number, p: any) => a + p.costUsd, 0);
    // The 30-hours-ago tool call is outside 24h; the other project's span is not counted.
    expect(total).toBeCloseTo(3.51, 9);
    const week = (await h.gql(SERIES, { window: '7d' }, ADMIN)).data.costSeries;
    expect(week.points).toHaveLength(168);
    expect(week.points.reduce((a: number, p: any) => a + p.toolCostUsd, 0)).toBeCloseTo(0.02, 9);
  });

  it('takes since/until widened to whole hours, like costBreakdown, and matches its totals', async () => {
    const vars = { since: at(4, 5 * 60_000), until: at(1) };
    const s = (await h.gql(SERIES, vars, ADMIN)).data.costSeries;
    expect(s.window).toBe('custom');
    expect(s.since).toBe(new Date(hourStart - 4 * HOUR).toISOString());
    expect(s.until).toBe(new Date(hourStart).toISOString());
    expect(s.points).toHaveLength(4);
    const b = (await h.gql(BREAKDOWN, vars, ADMIN)).data.costBreakdown;
    expect(b).toMatchObject({ window: 'custom', since: s.since, until: s.until, totalCostUsd: 1 });
  });

  it("is scoped to the caller's project: a bound key sees its own and is refused another", async () => {
    const s = (await h.gql(SERIES, { projectId: 'other' }, ADMIN)).data.costSeries;
    expect(s.points.reduce((a: number, p: any) => a + p.costUsd, 0)).toBeCloseTo(2.5, 9);
    const { data: created } = await h.gql(
      'mutation { createApiKey(input: {name: "other viewer", role: "viewer", projectId: "other"}) { key } }',
      {},
      ADMIN,
    );
    const key = created.createApiKey.key as string;
    const own = (await h.gql(SERIES, {}, key)).data.costSeries;
    expect(own.points.reduce((a: number, p: any) => a + p.llmCostUsd, 0)).toBeCloseTo(2.5, 9);
    const elsewhere = await h.gql(SERIES, { projectId: 'default' }, key);
    expect(elsewhere.data).toBeNull();
    expect(elsewhere.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('refuses a range over 30 days, half a range, or a range with a window (422 issues)', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ since: at(24 * 31), until: at(0) }, 'until'],
      [{ since: at(2) }, 'until'],
      [{ since: at(2), until: at(3) }, 'until'],
      [{ window: '7d', since: at(2), until: at(1) }, 'window'],
      [{ window: '1y' }, 'window'],
    ];
    for (const [vars, field] of cases)
      for (const doc of [SERIES, BREAKDOWN]) {
        const r = await h.gql(doc, vars, ADMIN);
        expect(r.data, JSON.stringify(vars)).toBeNull();
        expect(r.errors?.[0]?.extensions?.issues, JSON.stringify(vars)).toContainEqual(
          expect.objectContaining({ loc: ['query', field] }),
        );
      }
  });
});

describe('GET /api/costs/breakdown with since/until', () => {
  const rest = async (vars: Record<string, string>) => {
    const res = await h.fetch(`/api/costs/breakdown?${new URLSearchParams(vars).toString()}`, {
      headers: { 'x-api-key': ADMIN },
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  it('answers the range costBreakdown answers, widened to whole hours', async () => {
    const vars = { since: at(4, 5 * 60_000), until: at(1) };
    const r = await rest(vars);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      window: 'custom',
      since: new Date(hourStart - 4 * HOUR).toISOString(),
      until: new Date(hourStart).toISOString(),
      total_cost_usd: 1,
      llm_cost_usd: 1,
      tool_cost_usd: 0,
    });
    const g = (await h.gql(BREAKDOWN, vars, ADMIN)).data.costBreakdown;
    expect([g.since, g.until, g.totalCostUsd]).toEqual([
      r.json.since,
      r.json.until,
      r.json.total_cost_usd,
    ]);
  });

  it('refuses what costBreakdown refuses, with the same 422 issues', async () => {
    const cases: Record<string, string>[] = [
      { since: at(24 * 31), until: at(0) },
      { since: at(2) },
      { since: at(2), until: at(3) },
      { window: '7d', since: at(2), until: at(1) },
      { since: 'yesterday', until: at(1) },
    ];
    for (const vars of cases) {
      const r = await rest(vars);
      expect(r.status, JSON.stringify(vars)).toBe(422);
      if (vars.since === 'yesterday') {
        expect(r.json.detail).toEqual([
          {
            loc: ['query', 'since'],
            msg: 'Input should be an ISO 8601 datetime',
            type: 'datetime_parsing',
          },
        ]);
        continue;
      }
      const g = await h.gql(BREAKDOWN, vars, ADMIN);
      expect(g.errors?.[0]?.extensions, JSON.stringify(vars)).toMatchObject({
        code: 'VALIDATION',
        status: 422,
      });
      expect(r.json.detail, JSON.stringify(vars)).toEqual(g.errors[0].extensions.issues);
    }
  });
});
