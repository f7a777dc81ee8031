import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startTestServer, type TestServer } from './server.ts';

const require = createRequire(import.meta.url);
/** Screenshots and other artefacts of the browser tests (gitignored). */
export const ARTEFACTS = join(import.meta.dirname, '../../test-results/ui');
/** Debian's chromium (`.ci/run` installs it): no browser download. */
export const CHROMIUM = process.env.SPYGLASS_CHROMIUM ?? '/usr/bin/chromium';

export interface UiServer {
  server: TestServer;
  /** http://127.0.0.1:port */
  base: string;
  browser: Browser;
  /** Stops the browser and the server. */
  close(): Promise<void>;
}

/**
 * A real server (test/helpers/server.ts, env as there) and a headless Chromium for the dashboard.
 * dist/ui is built by the test run's global setup (test/helpers/build.ts#buildUiIfStale).
 */
export async function startUi(env: Record<string, string> = {}): Promise<UiServer> {
  const server = await startTestServer(env);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  return {
    server,
    base: server.httpUrl,
    browser,
    close: async () => {
      await browser.close();
      await server.dispose();
    },
  };
}

/** Sends spans through the real native ingest endpoint (POST /api/traces/spans). */
export async function seedSpans(base: string, spans: unknown[], key?: string): Promise<void> {
  const res = await fetch(`${base}/api/traces/spans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify(spans),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

export interface UiPage {
  page: Page;
  context: BrowserContext;
  /** console.error messages and uncaught page errors, in order. */
  consoleErrors: string[];
  /** Every request the page made to another origin (must stay empty). */
  foreignRequests: string[];
  /** Saves a full-page screenshot as test-results/ui/<name>.png. */
  screenshot(name: string): Promise<string>;
  /** axe-core's serious and critical violations on the page as it is now. */
  axe(): Promise<{ id: string; impact: string; help: string; nodes: number }[]>;
  close(): Promise<void>;
}

/** Opens `path` in a fresh browser context (its own cookies), recording console errors and requests. */
export async function openPage(ui: UiServer, path: string): Promise<UiPage> {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  const origin = new URL(ui.base).origin;
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('request', (r) => {
    const url = r.url();
    const u = new URL(url);
    const same = u.host === new URL(origin).host && ['http:', 'ws:'].includes(u.protocol);
    if (!same && !url.startsWith('data:') && !url.startsWith('blob:')) foreignRequests.push(url);
  });
  await page.goto(`${ui.base}${path}`);
  return {
    page,
    context,
    consoleErrors,
    foreignRequests,
    screenshot: async (name) => {
      mkdirSync(ARTEFACTS, { recursive: true });
      const file = join(ARTEFACTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    axe: async () => {
      // page.evaluate runs through the DevTools protocol, outside the page's CSP: nothing is injected into the page.
      const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
      await page.evaluate(source);
      const result = (await page.evaluate(() =>
        (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
      )) as { violations: { id: string; impact: string; help: string; nodes: unknown[] }[] };
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
    },
    close: () => context.close(),
  };
}
