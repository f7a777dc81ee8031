import { describe, expect, it } from 'vitest';
import {
  deletePricing,
  listAllPricing,
  sumCostPerHour,
  sumHourlyCosts,
  topSessionsByCost,
  upsertPricing,
} from '../../../src/store/costs-repo.ts';
import { insertSpans } from '../../../src/store/spans-repo.ts';
import { backends } from '../../helpers/backends.ts';
import { project, useRepoStore } from '../../helpers/repo-store.ts';
import { span } from '../../helpers/spans.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Model prices and the cost rollups (costs-repo) on each driver. */
describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(available ? 'cost repository' : `skipped: no ${name}`, () => {
    const db = useRepoStore(name);

    it('keeps dated prices per project; a record of the same instant is replaced', async () => {
      const p = project();
      const price = {
        projectId: p,
        modelId: 'gpt-x',
        provider: 'openai',
        inputPer1mUsd: 1,
        outputPer1mUsd: 2,
        cacheReadPer1mUsd: null,
        cacheWritePer1mUsd: null,
        effectiveFrom: new Date('2026-01-01T00:00:00.000Z'),
      };
      await upsertPricing(db(), price);
      await upsertPricing(db(), { ...price, inputPer1mUsd: 1.5, cacheReadPer1mUsd: 0.1 });
      await upsertPricing(db(), { ...price, effectiveFrom: new Date('2026-06-01T00:00:00.000Z') });
      await upsertPricing(db(), { ...price, projectId: project(), modelId: 'other' });
      const mine = await listAllPricing(db(), p);
      expect(mine.map(({ updatedAt: _u, ...r }) => r)).toEqual([
        { ...price, inputPer1mUsd: 1.5, cacheReadPer1mUsd: 0.1 },
        { ...price, effectiveFrom: new Date('2026-06-01T00:00:00.000Z') },
      ]);
      expect((await listAllPricing(db())).filter((r) => r.projectId === p)).toHaveLength(2);
      expect(await deletePricing(db(), project(), 'gpt-x')).toBe(0);
      expect(await deletePricing(db(), p, 'gpt-x')).toBe(2);
      expect(await listAllPricing(db(), p)).toEqual([]);
    });

    it('sums costs over whole days and the partial hours at the edges, per project', async () => {
      const p = project();
      // Days before today: a whole UTC day inside the window, and an hour of the day before it.
      const today = Math.floor(Date.now() / DAY) * DAY;
      const dayA = today - 3 * DAY;
      await insertSpans(db(), [
        span(p, new Date(dayA - 2 * HOUR), { costUsd: 1, inputTokens: 10, outputTokens: 1 }),
        span(p, new Date(dayA + 5 * HOUR), { costUsd: 2, inputTokens: 20, outputTokens: 2 }),
        span(p, new Date(dayA + 6 * HOUR), {
          spanType: 'agent',
          toolName: '',
          modelId: 'gpt-x',
          costUsd: 4,
          costEstimated: true,
        }),
        // outside the window
        span(p, new Date(dayA - 5 * HOUR), { costUsd: 100 }),
        span(project(), new Date(dayA + 5 * HOUR), { costUsd: 100 }),
      ]);
      const since = new Date(dayA - 3 * HOUR);
      const until = new Date(dayA + DAY);
      const rows = await sumHourlyCosts(db(), p, since, until);
      const sorted = rows.sort((a, b) => a.span_type.localeCompare(b.span_type));
      expect(sorted).toMatchObject([
        {
          span_type: 'agent',
          agent_name: 'planner',
          model_id: 'gpt-x',
          calls: 1,
          cost_usd: 4,
          estimated_calls: 1,
        },
        {
          span_type: 'tool_call',
          server_name: 'filesystem',
          tool_name: 'read_file',
          calls: 2,
          input_tokens: 30,
          output_tokens: 3,
          cost_usd: 3,
          estimated_calls: 0,
        },
      ]);
      expect(await sumHourlyCosts(db(), project(), since, until)).toEqual([]);
      expect(await sumCostPerHour(db(), p, since, until)).toEqual([
        { hour: new Date(dayA - 2 * HOUR), llm_cost_usd: 0, tool_cost_usd: 1 },
        { hour: new Date(dayA + 5 * HOUR), llm_cost_usd: 0, tool_cost_usd: 2 },
        { hour: new Date(dayA + 6 * HOUR), llm_cost_usd: 4, tool_cost_usd: 0 },
      ]);
    });

    it('ranks the costliest sessions active in the window', async () => {
      const p = project();
      const t = Date.now() - HOUR;
      await insertSpans(db(), [
        span(p, new Date(t), { sessionId: 'cheap', costUsd: 0.5 }),
        span(p, new Date(t), { sessionId: 'dear', agentName: 'coder', costUsd: 3 }),
        span(p, new Date(t + 1000), { sessionId: 'dear', costUsd: 1 }),
        span(p, new Date(t), { sessionId: 'free' }),
        span(project(), new Date(t), { sessionId: 'elsewhere', costUsd: 99 }),
      ]);
      const top = await topSessionsByCost(db(), p, new Date(t - HOUR), new Date(t + HOUR), 10);
      expect(top).toEqual([
        { session_id: 'dear', agent_name: 'coder', cost_usd: 4, last_call_at: new Date(t + 1000) },
        { session_id: 'cheap', agent_name: 'planner', cost_usd: 0.5, last_call_at: new Date(t) },
      ]);
      expect(
        await topSessionsByCost(db(), p, new Date(t - HOUR), new Date(t + HOUR), 1),
      ).toHaveLength(1);
    });
  });
});
