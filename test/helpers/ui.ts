import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type ConsoleMessage,
  type Cookie,
  type Dialog,
  type Page,
  type Request,
  request,
} from 'playwright-core';
import { expect } from 'vitest';
import { startTestServer, type TestServer } from './server.ts';
import { closeBusyTabs, releaseTab, takeTab } from './ui-tabs.ts';

const require = createRequire(import.meta.url);
/** Screenshots and other artefacts of the browser tests (gitignored). */
export const ARTEFACTS = join(import.meta.dirname, '../../test-results/ui');
/**
 * Debian's Chromium, no browser download: its headless shell (`chromium-headless-shell`, which
 * `.ci/run` installs) when there, else the full browser. The shell is Chromium's headless mode
 * without the browser's UI layer: the same Blink and V8, about a fifth less CPU for the browser
 * tests (docs/ui.md#tests).
 */
export const CHROMIUM =
  process.env.SPYGLASS_CHROMIUM ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p)) ??
  '/usr/bin/chromium';

/** Whether `screenshot()` saves anything (docs/ui.md#tests). */
const SCREENSHOTS = process.env.SPYGLASS_TEST_SCREENSHOTS === '1';

export interface UiServer {
  server: TestServer;
  /** http://127.0.0.1:port */
  base: string;
  browser: Browser;
  /** The cookies of each API key's dashboard session (see openSignedIn). */
  sessions: Map<string, Cookie[]>;
  /** Closes the contexts left open and stops the server (the browser stays for the next file). */
  close(): Promise<void>;
}

let shared: Promise<Browser> | null = null;

/**
 * One headless Chromium per test worker process, launched on first use: workers run file after
 * file with their modules kept (vitest.config.ts, isolate: false), so each file saves the launch.
 * Every page still starts as in a new context (test/helpers/ui-tabs.ts). Playwright kills the
 * browser when the worker process exits.
 */
function sharedBrowser(): Promise<Browser> {
  shared ??= chromium
    .launch({
      executablePath: CHROMIUM,
      headless: true,
      // --single-process: the browser, its GPU (software) compositing and the one renderer that
      // serves every tab of a worker in one process, without the IPC between them. Over
      // `npx vitest run test/ui` Chromium's CPU went 97-120 s -> 84-86 s (three runs, loaded
      // machine, docs/ui.md#tests); SPYGLASS_CHROMIUM_MULTI_PROCESS=1 keeps Chromium's processes.
      args: [
        '--no-sandbox',
        '--disable-dev-shm-usage',
        '--disable-gpu',
        ...(process.env.SPYGLASS_CHROMIUM_MULTI_PROCESS === '1' ? [] : ['--single-process']),
      ],
    })
    .then((browser) => {
      browser.on('disconnected', () => (shared = null));
      return browser;
    });
  return shared.catch((err: unknown) => {
    shared = null;
    throw err;
  });
}

/**
 * A real server (test/helpers/server.ts, env as there) and the worker's headless Chromium for the
 * dashboard. dist/ui is built by the test run's global setup (test/helpers/build.ts#buildUiIfStale).
 */
export async function startUi(env: Record<string, string> = {}): Promise<UiServer> {
  const [server, browser] = await Promise.all([startTestServer(env), sharedBrowser()]);
  return {
    server,
    base: server.httpUrl,
    browser,
    sessions: new Map(),
    close: async () => {
      // A context a failed test left open must not outlive its server.
      await closeBusyTabs(browser);
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
  /** The message of every alert, confirm or prompt the page opened (each is dismissed). */
  dialogs: string[];
  /**
   * With SPYGLASS_TEST_SCREENSHOTS=1, saves a full-page screenshot as test-results/ui/<name>.png (for
   * a person to look at the pages a run reached); otherwise nothing: no test reads them, and the
   * PNGs cost Chromium CPU in every run.
   */
  screenshot(name: string): Promise<void>;
  /** axe-core's serious and critical violations on the page as it is now. */
  axe(): Promise<{ id: string; impact: string; help: string; nodes: number }[]>;
  close(): Promise<void>;
}

/** axe-core's browser build, read once per worker. */
let axeSource: string | undefined;

/**
 * Opens `path` in a browser context of its own, as new (test/helpers/ui-tabs.ts: no cookie but
 * `cookies`, to start signed in; empty storage), recording console errors and requests.
 */
export async function openPage(ui: UiServer, path: string, cookies?: Cookie[]): Promise<UiPage> {
  const tab = await takeTab(ui.browser, cookies);
  const { context, page } = tab;
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  const dialogs: string[] = [];
  const origin = new URL(ui.base).origin;
  const onConsole = (m: ConsoleMessage) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  };
  const onPageError = (e: Error) => consoleErrors.push(String(e));
  const onRequest = (r: Request) => {
    const url = r.url();
    const u = new URL(url);
    const same = u.host === new URL(origin).host && ['http:', 'ws:'].includes(u.protocol);
    if (!same && !url.startsWith('data:') && !url.startsWith('blob:')) foreignRequests.push(url);
  };
  const onDialog = (d: Dialog) => {
    dialogs.push(d.message());
    void d.dismiss();
  };
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  page.on('request', onRequest);
  page.on('dialog', onDialog);
  let closed: Promise<void> | undefined;
  await page.goto(`${ui.base}${path}`);
  return {
    page,
    context,
    consoleErrors,
    foreignRequests,
    dialogs,
    screenshot: async (name) => {
      if (!SCREENSHOTS) return;
      mkdirSync(ARTEFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
    },
    axe: async () => {
      // page.evaluate runs through the DevTools protocol, outside the page's CSP: nothing is
      // injected into the page. Once per document: a navigation starts a new one.
      if (!(await page.evaluate(() => 'axe' in window))) {
        axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
        await page.evaluate(axeSource);
      }
      // Every rule that can report a serious or critical violation runs. A rule that declares its
      // impact (minor or moderate: region, landmark-*, heading-order...) gives every violation that
      // impact (axe-core's finalizeRuleResult), which the filter below drops anyway: such rules
      // are skipped, a third of axe's time. resultTypes only stops axe collecting every passing
      // node, and selectors: false computing a CSS selector per node; no test reads either.
      const result = (await page.evaluate(() => {
        interface Axe {
          run(o: object): Promise<unknown>;
          _audit?: { rules?: { id: string; impact?: string }[] };
        }
        const axe = (window as unknown as { axe: Axe }).axe;
        const mild = (axe._audit?.rules ?? []).filter(
          (r) => r.impact === 'minor' || r.impact === 'moderate',
        );
        return axe.run({
          resultTypes: ['violations'],
          selectors: false,
          rules: Object.fromEntries(mild.map((r) => [r.id, { enabled: false }])),
        });
      })) as { violations: { id: string; impact: string; help: string; nodes: unknown[] }[] };
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
    },
    close: () =>
      (closed ??= (async () => {
        // What the tab meets after this test is not this test's.
        page.off('console', onConsole);
        page.off('pageerror', onPageError);
        page.off('request', onRequest);
        page.off('dialog', onDialog);
        await releaseTab(ui.browser, tab, origin);
      })()),
  };
}

/** The dashboard's sign-in with an API key (ui/src/views/login/queries.ts), as the form sends it. */
const LOGIN_WITH_API_KEY = 'mutation ($key: String!) { loginWithApiKey(key: $key) { role } }';

/**
 * The cookies of a dashboard session for `key`, made by the sign-in form's mutation sent as the
 * dashboard sends it (same origin, `X-Requested-With`), in a cookie jar of its own.
 */
async function signIn(ui: UiServer, key: string): Promise<Cookie[]> {
  const jar = await request.newContext({ baseURL: ui.base });
  try {
    const res = await jar.post('/graphql', {
      headers: { origin: new URL(ui.base).origin, 'x-requested-with': 'spyglass-ui' },
      data: { query: LOGIN_WITH_API_KEY, variables: { key } },
    });
    expect(res.status(), await res.text()).toBe(200);
    expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();
    return (await jar.storageState()).cookies;
  } finally {
    await jar.dispose();
  }
}

/**
 * Opens `path` signed in with an API key. The key's first page of a file signs in with the
 * sign-in form's own mutation (docs/ui.md#auth; test/ui/login.browser.test.ts drives the form
 * itself): a page load and the form's steps fewer per key and file. The session's cookie is kept,
 * and each of the key's pages starts with it (and nothing else). Resolves once the signed-in
 * shell shows, and the page's `h1` when given.
 */
export async function openSignedIn(
  ui: UiServer,
  key: string,
  path: string,
  h1?: string,
): Promise<UiPage> {
  let cookies = ui.sessions.get(key);
  if (!cookies) ui.sessions.set(key, (cookies = await signIn(ui, key)));
  const p = await openPage(ui, path, cookies);
  await p.page.getByTestId('who').waitFor();
  if (h1) await p.page.getByRole('heading', { level: 1, name: h1 }).waitFor();
  return p;
}
