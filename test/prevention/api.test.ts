import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION } from '../../src/model/prevention-config.ts';
import {
  auditLogs,
  bootstrapKey,
  call,
  createProject,
  expectStatus,
  type Reply,
  twoProjects,
} from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/** The prevention config API over REST (docs/prevention.md): shapes, defaults, inheritance, validation, auth, audit. */

const A = 'prev-a';
const B = 'prev-b';
let server: InProcessApp;
let base: string;
const boot = bootstrapKey();
let adminA: string;
let viewerA: string;
let adminB: string;

beforeAll(async () => {
  server = await startInProcessApp({ SPYGLASS_API_KEYS: boot, SPYGLASS_RATE_LIMITS: 'off' });
  base = server.httpUrl;
  ({ admin: adminA, viewer: viewerA, otherAdmin: adminB } = await twoProjects(base, boot, A, B));
});
afterAll(async () => server?.close());

const agentPath = (name: string) => `/api/agents/${encodeURIComponent(name)}/prevention-config`;
const req = (method: string, path: string, key: string, body?: unknown) =>
  call(base, method, path, { key, body });
const ok = async (p: Promise<Reply>, what: string, status = 200) =>
  expectStatus(await p, status, what).json;
/** The `loc`s of a 422, as dotted strings without the leading "body". */
const locs = (r: Reply) =>
  (r.json.detail as { loc: string[] }[]).map((d) => d.loc.slice(1).join('.'));

describe('prevention config over REST', () => {
  it('answers the spec defaults when nothing is stored, for the project (an agent: 404 unless include_defaults)', async () => {
    // Issue 24 item 10: an SDK taking a 200 would swap its author's guards for these defaults.
    expect((await req('GET', agentPath('fresh-agent'), viewerA)).status).toBe(404);
    const effective = await ok(
      req('GET', `${agentPath('fresh-agent')}?include_defaults=true`, viewerA),
      'effective',
    );
    expect(effective).toEqual({
      ...DEFAULT_PREVENTION,
      id: null,
      project_id: A,
      agent_name: '*',
      is_agent_override: false,
      source: 'default',
      updated_at: null,
    });
    expect(await ok(req('GET', '/api/prevention-config', viewerA), 'short')).toEqual(effective);
    expect(await ok(req('GET', `/api/projects/${A}/prevention-config`, viewerA), 'long')).toEqual(
      effective,
    );
  });

  it('PUT with the flat shape replaces the override; omitted fields take the defaults', async () => {
    const put = await ok(
      req('PUT', agentPath('flat'), adminA, {
        loop_threshold: 3,
        loop_action: 'terminate',
        max_cost_usd: 2.5,
      }),
      'put',
    );
    expect(put).toMatchObject({
      ...DEFAULT_PREVENTION,
      loop_threshold: 3,
      loop_action: 'terminate',
      max_cost_usd: 2.5,
      agent_name: 'flat',
      is_agent_override: true,
      project_id: A,
    });
    expect(put.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(put.updated_at)).not.toBeNaN();
    // A second PUT replaces everything: loop_threshold goes back to its default.
    const again = await ok(req('PUT', agentPath('flat'), adminA, { max_steps: 40 }), 'put again');
    expect(again).toMatchObject({ ...DEFAULT_PREVENTION, max_steps: 40, id: put.id });
    expect(await ok(req('GET', agentPath('flat'), viewerA), 'get')).toEqual(again);
  });

  it('PUT with the nested shape stores the flat fields; the soft alert amount becomes a fraction', async () => {
    const nested = {
      loop_detection: { enabled: false, threshold: 7, action: 'terminate', max_steps: 100 },
      budget: { max_cost_usd: 10, soft_alert_threshold_usd: 6, max_wall_time_seconds: 600 },
      circuit_breaker: {
        enabled: true,
        open_after_failures: 2,
        cooldown_seconds: 45,
        half_open_max_calls: 1,
      },
    };
    const r = await ok(req('PUT', agentPath('nested'), adminA, nested), 'nested put');
    expect(r).toMatchObject({
      loop_enabled: false,
      loop_threshold: 7,
      loop_action: 'terminate',
      max_steps: 100,
      max_cost_usd: 10,
      budget_soft_alert: 0.6,
      max_wall_time_s: 600,
      cb_enabled: true,
      cb_failure_threshold: 2,
      cb_cooldown_seconds: 45,
      cb_half_open_max_calls: 1,
      agent_name: 'nested',
      is_agent_override: true,
    });
  });

  it('PATCH changes only the fields sent, over the stored config or the defaults', async () => {
    await ok(
      req('PUT', agentPath('patchy'), adminA, { loop_threshold: 9, max_cost_usd: 5 }),
      'put',
    );
    const p1 = await ok(
      req('PATCH', agentPath('patchy'), adminA, { loop_action: 'terminate' }),
      'patch flat',
    );
    expect(p1).toMatchObject({ loop_threshold: 9, max_cost_usd: 5, loop_action: 'terminate' });
    const p2 = await ok(
      req('PATCH', agentPath('patchy'), adminA, { circuit_breaker: { cooldown_seconds: 99 } }),
      'patch nested',
    );
    expect(p2).toMatchObject({
      loop_threshold: 9,
      max_cost_usd: 5,
      loop_action: 'terminate',
      cb_cooldown_seconds: 99,
    });
    // A nested soft alert amount alone is a fraction of the stored max (5): 4 → 0.8.
    const p3 = await ok(
      req('PATCH', agentPath('patchy'), adminA, { budget: { soft_alert_threshold_usd: 4 } }),
      'patch soft alert',
    );
    expect(p3).toMatchObject({ max_cost_usd: 5, budget_soft_alert: 0.8, loop_threshold: 9 });
    // null lifts a limit.
    expect(
      await ok(req('PATCH', agentPath('patchy'), adminA, { max_cost_usd: null }), 'null'),
    ).toMatchObject({ max_cost_usd: null, loop_threshold: 9 });
    // No stored row: the patch applies over the defaults.
    expect(
      await ok(req('PATCH', agentPath('patch-new'), adminA, { max_steps: 3 }), 'patch new'),
    ).toMatchObject({ ...DEFAULT_PREVENTION, max_steps: 3, is_agent_override: true });
  });

  it('an override replaces the whole project default (no field merge), and deleting it falls back', async () => {
    await ok(
      req('PUT', `/api/projects/${A}/prevention-config`, adminA, {
        loop_threshold: 2,
        max_steps: 50,
        cb_enabled: false,
      }),
      'default',
    );
    const fallback = await ok(req('GET', agentPath('inherit'), viewerA), 'inherits');
    expect(fallback).toMatchObject({
      agent_name: '*',
      is_agent_override: false,
      loop_threshold: 2,
      max_steps: 50,
      cb_enabled: false,
    });
    const override = await ok(
      req('PUT', agentPath('inherit'), adminA, { loop_threshold: 8 }),
      'override',
    );
    // max_steps and cb_enabled are the spec's defaults, not the project default's values.
    expect(override).toMatchObject({
      ...DEFAULT_PREVENTION,
      loop_threshold: 8,
      agent_name: 'inherit',
      is_agent_override: true,
    });
    expect(await ok(req('GET', agentPath('inherit'), viewerA), 'effective')).toEqual(override);
    expectStatus(await req('DELETE', agentPath('inherit'), adminA), 204, 'delete override');
    expect(await ok(req('GET', agentPath('inherit'), viewerA), 'after delete')).toEqual(fallback);
    expectStatus(await req('DELETE', agentPath('inherit'), adminA), 404, 'no override left');
  });

  it('sets the project default through both spellings and deletes it back to the spec defaults', async () => {
    const long = await ok(
      req('PATCH', `/api/projects/${A}/prevention-config`, adminA, { max_wall_time_s: 120 }),
      'long patch',
    );
    expect(long).toMatchObject({
      agent_name: '*',
      is_agent_override: false,
      max_wall_time_s: 120,
      loop_threshold: 2,
    });
    expect(await ok(req('GET', '/api/prevention-config', viewerA), 'short get')).toEqual(long);
    const short = await ok(
      req('PUT', '/api/prevention-config', adminA, { loop_threshold: 4 }),
      'short put',
    );
    expect(short).toMatchObject({ ...DEFAULT_PREVENTION, loop_threshold: 4, id: long.id });
    expect(
      await ok(req('GET', `/api/projects/${A}/prevention-config`, viewerA), 'long get'),
    ).toEqual(short);
    // A global key names the project by query on the short spelling.
    expect(
      await ok(req('GET', `/api/prevention-config?project_id=${A}`, boot), 'global key'),
    ).toEqual(short);
    expectStatus(await req('DELETE', '/api/prevention-config', adminA), 204, 'delete default');
    expect(await ok(req('GET', '/api/prevention-config', viewerA), 'back')).toMatchObject({
      ...DEFAULT_PREVENTION,
      id: null,
      updated_at: null,
    });
    expectStatus(
      await req('GET', '/api/projects/no-such-project/prevention-config', boot),
      404,
      'unknown project',
    );
    expectStatus(
      await req('PUT', `${agentPath('x')}?project_id=no-such-project`, boot, {}),
      404,
      'write to unknown project',
    );
  });

  it('takes any agent name spans can carry: slashes, spaces, non-ASCII', async () => {
    const name = 'team/planner ü 🚀';
    expect(await ok(req('PUT', agentPath(name), adminA, { max_steps: 12 }), 'put')).toMatchObject({
      agent_name: name,
      max_steps: 12,
    });
    expect(await ok(req('GET', agentPath(name), viewerA), 'get')).toMatchObject({
      agent_name: name,
      max_steps: 12,
      is_agent_override: true,
    });
    expectStatus(await req('DELETE', agentPath(name), adminA), 204, 'delete');
  });

  it('lists every stored config of the project, the default first', async () => {
    await ok(req('PUT', '/api/prevention-config', adminA, { loop_threshold: 6 }), 'default');
    const list = (await ok(req('GET', '/api/prevention-configs', viewerA), 'list')) as {
      agent_name: string;
      project_id: string;
    }[];
    const names = list.map((c) => c.agent_name);
    expect(names[0]).toBe('*');
    expect(names.slice(1)).toEqual([...names.slice(1)].sort());
    expect(names).toEqual(expect.arrayContaining(['flat', 'nested', 'patchy', 'patch-new']));
    expect(list.every((c) => c.project_id === A)).toBe(true);
  });
});

describe('validation', () => {
  const cases: [string, unknown, string][] = [
    ['loop threshold 0', { loop_threshold: 0 }, 'loop_threshold'],
    ['action stop', { loop_action: 'stop' }, 'loop_action'],
    ['negative max_steps', { max_steps: -1 }, 'max_steps'],
    ['negative max_cost_usd', { max_cost_usd: -5 }, 'max_cost_usd'],
    ['zero wall time', { max_wall_time_s: 0 }, 'max_wall_time_s'],
    ['fractional threshold', { cb_failure_threshold: 1.5 }, 'cb_failure_threshold'],
    ['soft alert amount above max', { max_cost_usd: 5, budget_soft_alert: 7 }, 'budget_soft_alert'],
    ['soft alert amount without max', { budget_soft_alert: 3 }, 'budget_soft_alert'],
    [
      'nested soft alert ≥ max',
      { budget: { max_cost_usd: 5, soft_alert_threshold_usd: 5 } },
      'budget.soft_alert_threshold_usd',
    ],
    ['nested negative limit', { loop_detection: { max_steps: -3 } }, 'loop_detection.max_steps'],
    ['unknown field', { loop_threshhold: 3 }, 'loop_threshhold'],
    ['unknown nested field', { budget: { max_usd: 3 } }, 'budget.max_usd'],
    ['string for a boolean', { cb_enabled: 'yes' }, 'cb_enabled'],
    ['integer beyond storage', { max_steps: 2 ** 40 }, 'max_steps'],
    ['another agent named in the body', { agent_name: 'someone-else' }, 'agent_name'],
  ];
  for (const [what, body, field] of cases) {
    it(`422 names ${field}: ${what}`, async () => {
      for (const method of ['PUT', 'PATCH']) {
        const r = await req(method, agentPath('validated'), adminA, body);
        expect(r.status, `${method} ${JSON.stringify(body)}: ${r.text}`).toBe(422);
        expect(locs(r)).toContain(field);
        expect(r.json.detail[0]).toEqual({
          loc: expect.any(Array),
          msg: expect.any(String),
          type: expect.any(String),
        });
      }
    });
  }

  it('a rejected write stores nothing', async () => {
    expectStatus(await req('PUT', agentPath('never'), adminA, { loop_threshold: 0 }), 422, 'bad');
    expect(await ok(req('GET', agentPath('never'), viewerA), 'get')).toMatchObject({
      is_agent_override: false,
    });
  });

  it('refuses `*` and over-long names as agents', async () => {
    const star = await req('PUT', agentPath('*'), adminA, {});
    expect(star.status).toBe(422);
    expect(star.json.detail[0].loc).toEqual(['path', 'name']);
    expect((await req('GET', agentPath('*'), viewerA)).status).toBe(422);
    expect((await req('PUT', agentPath('a'.repeat(513)), adminA, {})).status).toBe(422);
    expect((await req('PUT', agentPath('é'.repeat(512)), adminA, {})).status).toBe(200);
  });

  it('hostile bodies give 400 or 422, never a 500', async () => {
    const cases: [unknown, number][] = [
      [[], 422],
      [[{ loop_threshold: 3 }], 422],
      ['null', 422],
      ['"text"', 422],
      ['42', 422],
      ['{"__proto__": {"loop_threshold": 1}}', 400],
      ['{"constructor": {"prototype": {"x": 1}}}', 400],
      ['{"loop_threshold": 3', 400],
      ['{}{}', 400],
      [{ loop_threshold: 1e308 }, 422],
      ['{"loop_threshold": 1e999}', 422],
      [{ loop_threshold: 'NaN' }, 422],
      [{ max_cost_usd: 'Infinity' }, 422],
      [{ max_cost_usd: '-0' }, 422],
      [{ loop_detection: [] }, 422],
      [{ loop_detection: null, budget: 'x' }, 422],
      [{ toString: 1 }, 422],
      [{ hasOwnProperty: 'x' }, 422],
      [{ loop_action: { $ne: 1 } }, 422],
      [{ loop_detection: { threshold: { valueOf: 3 } } }, 422],
      [{ budget_soft_alert: -0.5 }, 422],
      [{ cb_cooldown_seconds: 2 ** 53 + 2 }, 422],
      [{ budget: { max_cost_usd: 1e308, soft_alert_threshold_usd: 1e307 } }, 200],
    ];
    for (const [body, status] of cases) {
      for (const method of ['PUT', 'PATCH']) {
        const r = await req(method, agentPath('hostile'), adminA, body);
        expect(r.status, `${method} ${JSON.stringify(body)} → ${r.text}`).toBe(status);
        if (status === 422) expect(r.json.detail[0].loc[0]).toBe('body');
      }
    }
    // What was stored is still a valid config that reads back.
    const stored = await ok(req('GET', agentPath('hostile'), viewerA), 'still readable');
    expect(stored.max_cost_usd).toBe(1e308);
    expect(stored.budget_soft_alert).toBeCloseTo(0.1, 12);
  });
});

describe('auth and isolation', () => {
  it('viewers read but cannot write (403)', async () => {
    for (const [method, path] of [
      ['PUT', agentPath('v')],
      ['PATCH', agentPath('v')],
      ['DELETE', agentPath('v')],
      ['PUT', '/api/prevention-config'],
      ['PATCH', `/api/projects/${A}/prevention-config`],
      ['DELETE', '/api/prevention-config'],
    ] as const) {
      expect((await req(method, path, viewerA, {})).status, `${method} ${path}`).toBe(403);
    }
    expectStatus(await req('GET', '/api/prevention-configs', viewerA), 200, 'viewer lists');
  });

  it("another project's key neither reads nor writes project A's configs", async () => {
    await ok(req('PUT', agentPath('private'), adminA, { loop_threshold: 11 }), 'A writes');
    // B's key reads its own project: no override there.
    expect(
      await ok(
        req('GET', `${agentPath('private')}?include_defaults=true`, adminB),
        'B reads its own',
      ),
    ).toMatchObject({ project_id: B, is_agent_override: false, loop_threshold: 5 });
    for (const [method, path] of [
      ['GET', `/api/projects/${A}/prevention-config`],
      ['PUT', `/api/projects/${A}/prevention-config`],
      ['DELETE', `/api/projects/${A}/prevention-config`],
      ['GET', `${agentPath('private')}?project_id=${A}`],
      ['PUT', `${agentPath('private')}?project_id=${A}`],
      ['DELETE', `${agentPath('private')}?project_id=${A}`],
      ['GET', `/api/prevention-configs?project_id=${A}`],
    ] as const) {
      expect(
        (await req(method, path, adminB, method === 'GET' || method === 'DELETE' ? undefined : {}))
          .status,
        `${method} ${path}`,
      ).toBe(403);
    }
    expect(
      ((await ok(req('GET', '/api/prevention-configs', adminB), 'B list')) as unknown[]).length,
    ).toBe(0);
    expect(await ok(req('GET', agentPath('private'), adminA), 'A still has it')).toMatchObject({
      loop_threshold: 11,
    });
  });

  it('every change is in the audit log, and a rejected one is not', async () => {
    await ok(req('PUT', agentPath('audited'), adminA, {}), 'put');
    await ok(req('PATCH', agentPath('audited'), adminA, { max_steps: 2 }), 'patch');
    expectStatus(await req('DELETE', agentPath('audited'), adminA), 204, 'delete');
    expectStatus(
      await req('PUT', agentPath('audited'), adminA, { loop_threshold: 0 }),
      422,
      'rejected',
    );
    const entries = (await auditLogs(base, adminA, '?limit=200')).filter(
      (e) => e.resource === `prevention_config:${A}/audited`,
    );
    expect(entries.map((e) => e.action).sort()).toEqual([
      'prevention_config.delete',
      'prevention_config.update',
      'prevention_config.update',
    ]);
    expect(entries.every((e) => e.result === 'success')).toBe(true);
  });

  it('deleting a project removes its configs', async () => {
    await createProject(base, boot, 'prev-gone');
    await ok(
      req('PUT', `/api/projects/prev-gone/prevention-config`, boot, { loop_threshold: 3 }),
      'put',
    );
    expectStatus(await req('DELETE', '/api/projects/prev-gone', boot), 204, 'delete project');
    await createProject(base, boot, 'prev-gone');
    expect(
      await ok(req('GET', '/api/projects/prev-gone/prevention-config', boot), 'fresh'),
    ).toMatchObject({ id: null, loop_threshold: 5 });
  });
});
