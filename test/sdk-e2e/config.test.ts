import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetExceededError, LoopDetectedError, Spyglass } from '../../sdk/src/index.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { agentName, eventually, putAgentConfig, refusal } from './helpers.ts';

/**
 * Config from the backend (docs/prevention.md#defaults-and-inheritance, issue #11): a stored config beats the
 * constructor's (with nothing stored, the constructor's applies), an edit applies mid-run on the
 * next call, and a deleted override falls back to the project default on the next run. The
 * backend-down case is in offline.test.ts.
 */
let server: TestServer;
let sg: Spyglass;
// Constructor values that the backend's must override: a loop after 2 identical calls ends the run.
const CONSTRUCTOR = { loop_detection: { threshold: 2, action: 'terminate' as const } };

beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
  // The default refresh (15 s) never fires within a test: only the fetch at session start counts.
  sg = new Spyglass({
    url: server.httpUrl,
    flushIntervalMs: 50,
    prevention: CONSTRUCTOR,
    logger: { warn: () => {} },
  });
});
afterAll(async () => {
  await sg?.shutdown();
  await server?.dispose();
});

/** A non-MCP tool whose arguments the test picks; counts the calls that really ran. */
function searchTool(agentSg: Spyglass) {
  let ran = 0;
  return {
    call: (q: string) =>
      agentSg.guard({ serverName: 'search-api', toolName: 'search', args: { q } }, () => ++ran),
    ran: () => ran,
  };
}

describe('prevention config from the backend', () => {
  it('an agent override set through the API beats the constructor values', async () => {
    const agent = agentName('override');
    await putAgentConfig(server, agent, { loop_threshold: 4, loop_action: 'terminate' });
    const search = searchTool(sg);
    let err!: LoopDetectedError;
    await sg.session({ agentName: agent }, async () => {
      // The constructor's threshold 2 would stop the second call; the backend's 4 lets three run.
      for (let i = 0; i < 3; i++) await search.call('same');
      err = await refusal(() => search.call('same'), LoopDetectedError);
    });
    expect(search.ran()).toBe(3);
    expect(err.details).toMatchObject({ guard: 'loop_repetition', limit: 4 });
  });

  it('with nothing stored for the agent, the backend answers 404 and the constructor values apply', async () => {
    const agent = agentName('unconfigured');
    expectStatus(
      await call(server.httpUrl, 'GET', `/api/agents/${agent}/prevention-config`),
      404,
      'GET',
    );
    const search = searchTool(sg);
    let err!: LoopDetectedError;
    await sg.session({ agentName: agent }, async () => {
      await search.call('same');
      err = await refusal(() => search.call('same'), LoopDetectedError);
    });
    expect(search.ran()).toBe(1);
    expect(err.details).toMatchObject({ guard: 'loop_repetition', limit: 2 });
  });

  it('editing the config mid-run applies on the next call, without a restart', async () => {
    const agent = agentName('live-edit');
    await putAgentConfig(server, agent, {
      loop_enabled: false,
      loop_threshold: 2,
      loop_action: 'terminate',
    });
    const live = new Spyglass({
      url: server.httpUrl,
      flushIntervalMs: 50,
      configRefreshMs: 100,
      prevention: CONSTRUCTOR,
      logger: { warn: () => {} },
    });
    try {
      const search = searchTool(live);
      let err: unknown;
      await live.session({ agentName: agent }, async () => {
        for (let i = 0; i < 4; i++) await search.call('same'); // loop detection is off
        const patched = await call(
          server.httpUrl,
          'PATCH',
          `/api/agents/${agent}/prevention-config`,
          { body: { loop_enabled: true } },
        );
        expect(expectStatus(patched, 200, 'PATCH').json).toMatchObject({
          loop_enabled: true,
          loop_threshold: 2,
        });
        // The same session keeps calling; within a few refreshes the repetition is stopped.
        err = await eventually(
          async () => {
            try {
              await search.call('same');
              return false;
            } catch (e) {
              return e;
            }
          },
          5000,
          'the edited config to apply',
        );
      });
      expect(err).toBeInstanceOf(LoopDetectedError);
      expect((err as LoopDetectedError).details).toMatchObject({
        guard: 'loop_repetition',
        limit: 2,
      });
    } finally {
      await live.shutdown();
    }
  });

  it('deleting an override falls back to the project default on the next run', async () => {
    const agent = agentName('fallback');
    const steps = (n: number) => ({ max_steps: n, loop_enabled: false });
    expectStatus(
      await call(server.httpUrl, 'PUT', '/api/projects/default/prevention-config', {
        body: steps(2),
      }),
      200,
      'PUT default',
    );
    try {
      await putAgentConfig(server, agent, steps(4));
      const search = searchTool(sg);
      const run = async () => {
        let err: BudgetExceededError | undefined;
        await sg.session({ agentName: agent, sessionId: randomUUID() }, async () => {
          for (let i = 0; i < 10 && !err; i++) {
            await search.call(`page ${i}`).catch((e: unknown) => {
              if (!(e instanceof BudgetExceededError)) throw e;
              err = e;
            });
          }
        });
        return err;
      };
      // With the override: 4 steps per session.
      expect((await run())?.details).toMatchObject({ guard: 'max_steps', limit: 4 });
      expect(search.ran()).toBe(4);
      expectStatus(
        await call(server.httpUrl, 'DELETE', `/api/agents/${agent}/prevention-config`),
        204,
        'DELETE override',
      );
      // The next run reads the project default: 2 steps.
      expect((await run())?.details).toMatchObject({ guard: 'max_steps', limit: 2 });
      expect(search.ran()).toBe(4 + 2);
    } finally {
      await call(server.httpUrl, 'DELETE', '/api/projects/default/prevention-config');
    }
  });
});
