import type { Browser, BrowserContext, Cookie, Page } from 'playwright-core';

/** The viewport every test page starts with. */
export const VIEWPORT = { width: 1280, height: 800 };

export interface Tab {
  context: BrowserContext;
  page: Page;
}

/**
 * Tabs (a context with its one page) that tests gave back, kept for the next test of the worker.
 * A new context costs Chromium a renderer process (0.6-1.2 s of CPU on the 2-core machine, more
 * than the dashboard's own load); a tab given back is emptied first (releaseTab), so the next
 * test starts as in a new context: no cookie but the ones it asks for, empty storage, the
 * default viewport and colour scheme, no route, no permission, no document of the last test.
 */
const idle = new WeakMap<Browser, Tab[]>();

function pool(browser: Browser): Tab[] {
  let tabs = idle.get(browser);
  if (!tabs) idle.set(browser, (tabs = []));
  return tabs;
}

/** A tab holding exactly `cookies`: an idle one when there is one, else a new context. */
export async function takeTab(browser: Browser, cookies: Cookie[] = []): Promise<Tab> {
  let tab = pool(browser).pop();
  if (tab) await tab.context.clearCookies();
  else {
    const context = await browser.newContext({ viewport: VIEWPORT });
    tab = { context, page: await context.newPage() };
  }
  if (cookies.length) await tab.context.addCookies(cookies);
  return tab;
}

/** How long emptying a tab may take before it is closed instead (a page stuck in a script). */
const RELEASE_MS = 10_000;

/**
 * Empties a test's tab and keeps it for the next test. The page must still be on `origin` (the
 * dashboard's), whose storage it clears; a tab that left it, opened another page, or fails a
 * step or takes over RELEASE_MS is closed instead.
 */
export async function releaseTab(browser: Browser, tab: Tab, origin: string): Promise<void> {
  const { context } = tab;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('emptying the tab timed out')), RELEASE_MS);
  });
  try {
    await Promise.race([empty(tab, origin), late]);
    pool(browser).push(tab);
  } catch {
    await context.close();
  } finally {
    clearTimeout(timer);
  }
}

async function empty({ context, page }: Tab, origin: string): Promise<void> {
  if (context.pages().length !== 1 || new URL(page.url()).origin !== origin)
    throw new Error('not reusable');
  // Independent steps run together: each is a round trip to a browser busy with other workers' pages.
  await Promise.all([
    page.evaluate(() => {
      localStorage.clear();
      sessionStorage.clear();
    }),
    page.unrouteAll({ behavior: 'ignoreErrors' }),
  ]);
  // Ends the document (its sockets, timers and requests) as closing the context would.
  await page.goto('about:blank');
  await Promise.all([
    page.emulateMedia({ colorScheme: 'light' }),
    page.setViewportSize(VIEWPORT),
    context.clearPermissions(),
    context.clearCookies(),
  ]);
}

/** Closes every context of `browser` but the idle tabs: those a test left open. */
export async function closeBusyTabs(browser: Browser): Promise<void> {
  const kept = new Set(pool(browser).map((t) => t.context));
  await Promise.all(
    browser
      .contexts()
      .filter((c) => !kept.has(c))
      .map((c) => c.close()),
  );
}
