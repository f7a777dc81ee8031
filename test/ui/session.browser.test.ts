import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeSpan } from '../helpers/spans.ts';
import { openPage, seedSpans, startUi, type UiServer } from '../helpers/ui.ts';

const HOSTILE = '<img src=x onerror="window.__pwned=1">\u202Egnp.exe';

/** Spans of one session: a root agent span and its children, times relative to `t0`. */
function span(
  session: string,
  id: string,
  parent: string | null,
  at: number,
  over: Record<string, unknown> = {},
) {
  const t0 = Date.now() - 600_000;
  const ms = typeof over.latency_ms === 'number' ? over.latency_ms : 40;
  return nativeSpan({
    span_id: id,
    parent_span_id: parent,
    session_id: session,
    trace_id: `trace-${session}`,
    started_at: new Date(t0 + at).toISOString(),
    ended_at: new Date(t0 + at + ms).toISOString(),
    latency_ms: ms,
    ...over,
  });
}

/** The session page in Chromium against a real server seeded through native ingest (docs/ui.md#session). */
describe('session page (browser)', () => {
  let ui: UiServer;
  beforeAll(async () => {
    ui = await startUi();
    await seedSpans(ui.base, [
      span('small', 'root', null, 0, { span_type: 'agent', tool_name: 'plan', latency_ms: 9000 }),
      span('small', 'handoff', 'root', 100, {
        span_type: 'handoff',
        tool_name: 'handoff',
        target_agent_name: 'coder',
      }),
      span('small', 'hostile', 'root', 200, { tool_name: 'fetch_page', output_result: HOSTILE }),
      span('small', 'failed', 'root', 300, { status: 'error', error: 'ENOENT: no such file' }),
      span('small', 'blocked', 'root', 8000, {
        status: 'prevented',
        error: 'loop_detected: same call 5 times',
        output_result: null,
      }),
    ]);
    // 1 root + 40 steps x 49 tool calls = 2,001 spans, in batches.
    const big = [
      span('big', 'big-root', null, 0, {
        span_type: 'agent',
        tool_name: 'run',
        latency_ms: 40_000,
      }),
    ];
    for (let s = 0; s < 40; s++) {
      big.push(
        span('big', `step-${s}`, 'big-root', s * 1000, { tool_name: `step_${s}`, latency_ms: 600 }),
      );
      for (let c = 0; c < 49; c++)
        big.push(
          span('big', `call-${s}-${c}`, `step-${s}`, s * 1000 + c * 10, {
            tool_name: `call_${s}_${c}`,
          }),
        );
    }
    for (let i = 0; i < big.length; i += 500) await seedSpans(ui.base, big.slice(i, i + 500));
  });
  afterAll(async () => ui?.close());

  it('renders the tree with data, guards and errors, no console error, no other origin, axe clean', async () => {
    const p = await openPage(ui, '/sessions/small');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Session' }).waitFor();
      const tree = p.page.getByRole('tree', { name: 'Spans of the session' });
      await tree.waitFor({ timeout: 15_000 });
      const items = p.page.getByRole('treeitem');
      expect(await items.count()).toBe(5);
      expect(await items.first().getAttribute('aria-level')).toBe('1');
      expect(await items.first().getAttribute('aria-expanded')).toBe('true');
      expect(await items.nth(1).getAttribute('aria-level')).toBe('2');
      const text = await tree.innerText();
      expect(text).toContain('loop');
      expect(text).toContain('error');
      expect(await p.page.locator('.session-lineage svg').count()).toBe(1);
      await p.screenshot('session');
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('selects by keyboard, loads the payload, and shows hostile text escaped', async () => {
    const p = await openPage(ui, '/sessions/small');
    try {
      const tree = p.page.getByRole('tree', { name: 'Spans of the session' });
      await tree.waitFor({ timeout: 15_000 });
      await tree.focus();
      await p.page.keyboard.press('j');
      await p.page.keyboard.press('j');
      await p.page.keyboard.press('j');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('span')).toBe('hostile');
      expect(await tree.getAttribute('aria-activedescendant')).toMatch(/hostile/);
      const panel = p.page.getByRole('complementary', { name: 'Selected span' });
      const output = panel.getByRole('region', { name: 'Output' });
      await output.waitFor({ timeout: 15_000 });
      const shown = await output.locator('pre').innerText();
      expect(shown).toContain('<img src=x onerror="window.__pwned=1">');
      expect(shown).toContain('\\u{202E}');
      expect(shown).not.toContain('\u202E');
      expect(await p.page.locator('main img').count()).toBe(0);
      expect(await p.page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      // ← goes to the parent, Enter collapses it, Esc clears the selection.
      await p.page.keyboard.press('ArrowLeft');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('span')).toBe('root');
      await p.page.keyboard.press('Enter');
      await expect.poll(() => p.page.getByRole('treeitem').count()).toBe(1);
      await p.page.keyboard.press('Escape');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('span')).toBeNull();
      // Search with next match selects and reveals the match.
      await p.page.getByRole('searchbox').fill('loop');
      await p.page.keyboard.press('Enter');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('span')).toBe('blocked');
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('expands and collapses all, and compresses idle gaps, keeping both in the URL', async () => {
    await seedSpans(ui.base, [
      span('gappy', 'g1', null, 0, { span_type: 'agent' }),
      span('gappy', 'g1-call', 'g1', 10),
      span('gappy', 'g2', null, 120_000, { span_type: 'agent' }),
    ]);
    const p = await openPage(ui, '/sessions/gappy');
    try {
      const items = p.page.getByRole('treeitem');
      await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(3);
      await p.page.getByRole('button', { name: 'Collapse all' }).click();
      await expect.poll(() => items.count()).toBe(2);
      expect(new URL(p.page.url()).searchParams.get('fold')).toBe('collapsed');
      await p.page.getByRole('button', { name: 'Expand all' }).click();
      await expect.poll(() => items.count()).toBe(3);
      await p.page.getByRole('checkbox', { name: /Compress idle gaps/ }).check();
      await expect.poll(() => new URL(p.page.url()).searchParams.get('gaps')).toBe('1');
      await expect.poll(() => p.page.locator('.wf-axis').innerText()).toContain('1 idle gap');
      // The second root's bar moves left once the two-minute gap is squeezed.
      const left = await p.page
        .locator('.wf-bar')
        .last()
        .evaluate((el) => el.style.left);
      expect(parseFloat(left)).toBeLessThan(90);
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('shows a span of an in-progress session as it arrives', async () => {
    await seedSpans(ui.base, [span('running', 'run-root', null, 590_000, { span_type: 'agent' })]);
    const p = await openPage(ui, '/sessions/running');
    try {
      const items = p.page.getByRole('treeitem');
      await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(1);
      // The page subscribes before the data arrives; give graphql-ws its connection first.
      await expect.poll(() => p.page.locator('.live-dot').count()).toBe(1);
      // A span sent before the subscription listens is missed: send another every 1.5 s, while
      // checking for the first to show far more often.
      let nextSend = 0;
      await expect
        .poll(
          async () => {
            if (Date.now() >= nextSend) {
              nextSend = Date.now() + 1500;
              await seedSpans(ui.base, [
                span('running', `late-${Date.now()}`, 'run-root', 590_050),
              ]);
            }
            return items.count();
          },
          { timeout: 15_000, interval: 100 },
        )
        .toBeGreaterThan(1);
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('shows a payload over 1 MB as a preview with a download of the whole value', async () => {
    // 600,000 two-byte characters: 1.2 MB of UTF-8 under ingest's 1,000,000-character cap.
    const huge = JSON.stringify({ rows: 'é'.repeat(600_000) });
    await seedSpans(ui.base, [span('huge', 'huge-span', null, 0, { output_result: huge })]);
    const p = await openPage(ui, '/sessions/huge?span=huge-span');
    try {
      const output = p.page.getByRole('region', { name: 'Output' });
      await output.getByRole('link', { name: 'Download all' }).waitFor({ timeout: 15_000 });
      expect(await output.innerText()).toContain('Too large to format');
      const shown = await output.locator('pre').innerText();
      expect(shown.length).toBeLessThan(70_000);
      expect(shown.startsWith('{"rows":"ééé')).toBe(true);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('renders and scrolls a 2,000-span session with only the rows in view in the DOM', async () => {
    const p = await openPage(ui, '/sessions/big?gaps=1');
    try {
      const tree = p.page.getByRole('tree', { name: 'Spans of the session' });
      await tree.waitFor({ timeout: 30_000 });
      const rows = p.page.getByRole('treeitem');
      await expect.poll(() => rows.count()).toBeGreaterThan(10);
      expect(await rows.count()).toBeLessThan(200);
      const firstBefore = await rows.first().getAttribute('id');
      await tree.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
      await expect.poll(() => rows.first().getAttribute('id')).not.toBe(firstBefore);
      await tree.focus();
      await p.page.keyboard.press('End');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('span')).toBe('call-39-48');
      await p.screenshot('session-2000');
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
