import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, configFile, createKey } from '../helpers/auth.ts';
import { openSignedIn, seedSpans, startUi, type UiPage, type UiServer } from '../helpers/ui.ts';
import { COST_RULES_YAML, costSpans, gqlWithKey } from '../helpers/ui-seed-costs.ts';

/** Waits for a value under load (2 cores shared by many tests). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

/** The page's money format (ui/src/views/costs/share-table.tsx `usd`). */
const usd = (v: number) => `$${v.toFixed(v !== 0 && Math.abs(v) < 0.01 ? 6 : 4)}`;

const BREAKDOWN = `query($window: String, $since: DateTime, $until: DateTime) {
  costBreakdown(window: $window, since: $since, until: $until) {
    totalCostUsd
    byModel { modelId costUsd estimated }
    byAgent { agentName costUsd }
    byTool { serverName toolName costUsd }
  }
}`;
const PRICES = `{ modelPricing { edges { node { modelId inputPer1mUsd outputPer1mUsd source } } } }`;

/** The costs page (docs/ui.md#costs) in Chromium against a real server seeded through native ingest. */
describe('costs page (browser)', { timeout: 90_000 }, () => {
  let ui: UiServer;
  let config: { path: string; remove(): void };
  let admin: string;
  let viewer: string;
  const boot = bootstrapKey();
  const api = (query: string, vars: Record<string, unknown> = {}) =>
    gqlWithKey(ui.base, admin, query, vars);

  beforeAll(async () => {
    config = configFile(COST_RULES_YAML);
    ui = await startUi({
      SPYGLASS_API_KEYS: boot,
      SPYGLASS_CONFIG: config.path,
      SPYGLASS_RATE_LIMITS: 'off',
    });
    admin = (await createKey(ui.base, boot, { name: 'costs admin', role: 'admin' })).key;
    viewer = (await createKey(ui.base, boot, { name: 'costs viewer', role: 'viewer' })).key;
    await seedSpans(ui.base, costSpans(), admin);
  });
  afterAll(async () => {
    await ui?.close();
    config?.remove();
  });

  const open = async (key: string, path = '/costs') => {
    return openSignedIn(ui, key, path, 'Costs');
  };
  const row = (p: UiPage, table: string, text: string) =>
    p.page.getByTestId(`${table}-table`).locator('tbody tr', { hasText: text });

  it('shows the totals per model, agent and tool the API answers, estimated costs marked', async () => {
    const p = await open(admin);
    try {
      const b = (await api(BREAKDOWN, { window: '24h' })).costBreakdown;
      expect(b.byAgent.map((a: any) => a.agentName).sort()).toEqual(['planner', 'writer']);
      await poll(() => p.page.getByTestId('total').innerText()).toBe(usd(b.totalCostUsd));
      for (const m of b.byModel)
        expect(await row(p, 'models', m.modelId).locator('td').last().innerText()).toContain('%');
      for (const m of b.byModel) {
        const cells = row(p, 'models', m.modelId).locator('td');
        expect(await cells.nth(3).innerText()).toBe(usd(m.costUsd));
        expect(await row(p, 'models', m.modelId).getByText('estimated').count()).toBe(
          m.estimated ? 1 : 0,
        );
      }
      expect(b.byModel.find((m: any) => m.modelId === 'acme-llm-1')?.estimated).toBe(true);
      await p.page.getByText('priced at the unknown-model price').waitFor();
      for (const a of b.byAgent) {
        const r = row(p, 'agents', a.agentName);
        expect(await r.locator('td').nth(2).innerText()).toBe(usd(a.costUsd));
        expect(await r.getByRole('link', { name: a.agentName }).getAttribute('href')).toBe(
          `/agents/${a.agentName}`,
        );
      }
      for (const t of b.byTool) {
        const r = row(p, 'tools', t.toolName);
        expect(await r.locator('td').last().innerText()).toContain('%');
        expect(await r.getByRole('link', { name: t.serverName }).getAttribute('href')).toBe(
          `/servers/${t.serverName}`,
        );
      }
      expect(await p.page.locator('.time-chart canvas').count()).toBeGreaterThan(0);
      // Sorting by agent name, ascending, is in the URL.
      await p.page.getByTestId('agents-table').getByRole('button', { name: 'Agent' }).click();
      await p.page.getByTestId('agents-table').getByRole('button', { name: 'Agent' }).click();
      expect(new URL(p.page.url()).searchParams.get('agentsDir')).toBe('asc');
      expect(await p.page.getByTestId('agents-table').locator('tbody th').allInnerTexts()).toEqual([
        'planner',
        'writer',
      ]);
      await p.screenshot('costs');
      expect(await p.page.locator('h1').count()).toBe(1);
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors).toEqual([]);
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('changing the window changes the URL and the numbers; from/to is a range of its own', async () => {
    const p = await open(admin);
    try {
      const day = (await api(BREAKDOWN, { window: '24h' })).costBreakdown;
      const week = (await api(BREAKDOWN, { window: '7d' })).costBreakdown;
      expect(week.totalCostUsd).toBeGreaterThan(day.totalCostUsd);
      await poll(() => p.page.getByTestId('total').innerText()).toBe(usd(day.totalCostUsd));
      await p.page.getByRole('combobox', { name: /^Window/ }).selectOption('7d');
      await poll(() => new URL(p.page.url()).searchParams.get('window')).toBe('7d');
      await poll(() => p.page.getByTestId('total').innerText()).toBe(usd(week.totalCostUsd));
      expect(await row(p, 'tools', 'create_pr').count()).toBe(1);
      // A range around the spans of 3 days ago only.
      const HOUR = 3_600_000;
      const local = (ms: number) => {
        const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
        return d.toISOString().slice(0, 16);
      };
      const from = Date.now() - 80 * HOUR;
      const to = Date.now() - 60 * HOUR;
      await p.page.getByLabel('From', { exact: true }).fill(local(from));
      await p.page.getByLabel('To', { exact: true }).fill(local(to));
      await p.page.getByRole('button', { name: 'Apply range' }).click();
      await poll(() => new URL(p.page.url()).searchParams.get('from')).not.toBeNull();
      const q = new URL(p.page.url()).searchParams;
      expect(q.get('window')).toBeNull();
      const range = (await api(BREAKDOWN, { since: q.get('from'), until: q.get('to') }))
        .costBreakdown;
      expect(range.totalCostUsd).toBeCloseTo(week.totalCostUsd - day.totalCostUsd, 9);
      await expect
        .poll(() => p.page.getByTestId('total').innerText())
        .toBe(usd(range.totalCostUsd));
      expect(p.consoleErrors).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('an admin adds a model price (server validation shown at the form), changes it and removes it after confirming', async () => {
    const p = await open(admin);
    const price = async () =>
      (await api(PRICES)).modelPricing.edges
        .map((e: any) => e.node)
        .find((n: any) => n.modelId === 'ui-test-model');
    try {
      await p.page.getByRole('button', { name: 'Add a model price' }).click();
      const form = p.page.getByRole('form', { name: 'Add a model price' });
      await form.getByLabel('Model id', { exact: true }).fill('ui-test-model');
      await form.getByLabel('Provider', { exact: true }).fill('acme');
      await form.getByLabel('Input USD / 1M tokens').fill('-1');
      await form.getByLabel('Output USD / 1M tokens').fill('3');
      await form.getByRole('button', { name: 'Add price' }).click();
      await expect
        .poll(() => form.getByRole('alert').innerText())
        .toContain('input_per_1m_usd: Input should be greater than or equal to 0');
      expect(await price()).toBeUndefined();
      await form.getByLabel('Input USD / 1M tokens').fill('1.5');
      await form.getByRole('button', { name: 'Add price' }).click();
      await p.page
        .locator('main')
        .getByRole('status')
        .getByText('Saved the price of ui-test-model.')
        .waitFor();
      await poll(price).toEqual({
        modelId: 'ui-test-model',
        inputPer1mUsd: 1.5,
        outputPer1mUsd: 3,
        source: 'custom',
      });
      await row(p, 'price', 'ui-test-model').waitFor();

      await p.page.getByRole('button', { name: 'Change the price of ui-test-model' }).click();
      const change = p.page.getByRole('form', { name: 'Change the price of ui-test-model' });
      await change.getByLabel('Output USD / 1M tokens').fill('4');
      await change.getByRole('button', { name: 'Save the new price' }).click();
      await poll(async () => (await price())?.outputPer1mUsd).toBe(4);
      await poll(() => row(p, 'price', 'ui-test-model').innerText()).toContain('$4');

      await p.page.getByRole('button', { name: 'Remove the price of ui-test-model' }).click();
      const dialog = p.page.getByRole('dialog', { name: 'Remove the price of ui-test-model?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await price()).toBeDefined();
      await p.page.getByRole('button', { name: 'Remove the price of ui-test-model' }).click();
      await dialog.getByRole('button', { name: 'Remove' }).click();
      await poll(price).toBeUndefined();
      await poll(() => row(p, 'price', 'ui-test-model').count()).toBe(0);
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors).toEqual([]);
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('a viewer sees the costs and the price book but no edit control', async () => {
    const p = await open(viewer);
    try {
      await row(p, 'price', 'gpt-4o').first().waitFor();
      await p.page.getByTestId('total').waitFor();
      expect(await p.page.getByRole('button', { name: 'Add a model price' }).count()).toBe(0);
      expect(await p.page.getByRole('button', { name: /^Change the price/ }).count()).toBe(0);
      expect(await p.page.getByRole('button', { name: /^Remove the price/ }).count()).toBe(0);
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      expect(await p.page.locator('h1').count()).toBe(1);
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors).toEqual([]);
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
