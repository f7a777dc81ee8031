import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/**
 * LangSight's SDK replaces the guards an agent author set in code with whatever a 200 from
 * GET /api/agents/{name}/prevention-config carries (issue 24 item 10): with nothing stored that
 * must be a 404, while the effective config (defaults included) stays readable with its source.
 */

const ADMIN = bootstrapKey();

describe.each(serverBackends)('$name', ({ available, env }) => {
  describe.runIf(available)('LangSight: prevention config of an agent with nothing stored', () => {
    let server: InProcessApp;
    const req = (method: string, path: string, body?: unknown) =>
      call(server.httpUrl, method, path, { key: ADMIN, body });
    const gql = async (query: string) => {
      const r = await req('POST', '/graphql', { query });
      expect(r.json.errors).toBeUndefined();
      return r.json.data;
    };

    beforeAll(async () => {
      server = await startInProcessApp({
        ...(await env()),
        SPYGLASS_API_KEYS: ADMIN,
        SPYGLASS_RATE_LIMITS: 'off',
      });
    });
    afterAll(async () => server?.close());

    it('nothing stored: 404 with a clear detail; include_defaults and GraphQL give the defaults with source default', async () => {
      const r = await req('GET', '/api/agents/support-agent/prevention-config');
      expect(r.status).toBe(404);
      expect(r.json.detail).toMatch(
        /no prevention config stored for agent support-agent nor as project default's default/,
      );
      const withDefaults = expectStatus(
        await req('GET', '/api/agents/support-agent/prevention-config?include_defaults=true'),
        200,
        'defaults',
      ).json;
      expect(withDefaults).toMatchObject({
        id: null,
        source: 'default',
        loop_threshold: 5,
        loop_action: 'warn',
        max_cost_usd: null,
      });
      const data = await gql(
        '{ preventionConfig(agentName: "support-agent") { source loopThreshold maxWallTimeS } }',
      );
      expect(data.preventionConfig).toEqual({
        source: 'default',
        loopThreshold: 5,
        maxWallTimeS: null,
      });
    });

    it('a project default answers 200 with source project; an override with source agent', async () => {
      expectStatus(
        await req('PUT', '/api/prevention-config', { loop_threshold: 3, loop_action: 'terminate' }),
        200,
        'project default',
      );
      expect(
        expectStatus(await req('GET', '/api/agents/support-agent/prevention-config'), 200, 'get')
          .json,
      ).toMatchObject({ source: 'project', loop_threshold: 3 });
      expectStatus(
        await req('PUT', '/api/agents/support-agent/prevention-config', {
          loop_threshold: 4,
          max_wall_time_s: 30.5,
          cb_cooldown_seconds: 1.5,
        }),
        200,
        'override',
      );
      const got = expectStatus(
        await req('GET', '/api/agents/support-agent/prevention-config'),
        200,
        'get',
      ).json;
      expect(got).toMatchObject({
        source: 'agent',
        is_agent_override: true,
        loop_threshold: 4,
        max_wall_time_s: 30.5,
        cb_cooldown_seconds: 1.5,
      });
      const data = await gql(
        '{ preventionConfig(agentName: "support-agent") { source maxWallTimeS cbCooldownSeconds } }',
      );
      expect(data.preventionConfig).toEqual({
        source: 'agent',
        maxWallTimeS: 30.5,
        cbCooldownSeconds: 1.5,
      });
    });

    it('fractional seconds are accepted through GraphQL too; non-positive ones are still a 422', async () => {
      const data = await gql(
        'mutation { updatePreventionConfig(agentName: "other", input: { cbCooldownSeconds: 2.25 }) { cbCooldownSeconds source } }',
      );
      expect(data.updatePreventionConfig).toEqual({ cbCooldownSeconds: 2.25, source: 'agent' });
      const bad = await req('PUT', '/api/agents/other/prevention-config', {
        max_wall_time_s: 0,
        cb_cooldown_seconds: -1.5,
      });
      expect(bad.status).toBe(422);
      expect(bad.json.detail.map((d: any) => d.loc.at(-1)).sort()).toEqual([
        'cb_cooldown_seconds',
        'max_wall_time_s',
      ]);
    });

    it('deleting the override and the project default brings the 404 back', async () => {
      expect((await req('DELETE', '/api/agents/support-agent/prevention-config')).status).toBe(204);
      expect((await req('DELETE', '/api/prevention-config')).status).toBe(204);
      expect((await req('GET', '/api/agents/support-agent/prevention-config')).status).toBe(404);
    });
  });
});
