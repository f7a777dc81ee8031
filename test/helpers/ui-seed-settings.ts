import { expect } from 'vitest';
import { openPage, type UiPage, type UiServer } from './ui.ts';

/**
 * Opens `path` signed in with an API key through the sign-in page (docs/ui.md#auth), waiting
 * for the page whose h1 is `title`.
 */
export async function openSignedIn(
  ui: UiServer,
  key: string,
  path: string,
  title: string,
): Promise<UiPage> {
  const p = await openPage(ui, path);
  await p.page.getByRole('heading', { level: 1, name: 'Sign in to Spyglass' }).waitFor();
  await p.page.getByRole('radio', { name: 'API key' }).check();
  await p.page.locator('#key').fill(key);
  await p.page.getByRole('button', { name: 'Sign in' }).click();
  await p.page.getByRole('heading', { level: 1, name: title }).waitFor();
  return p;
}

/** What every page test checks before it closes: accessible, one h1, no console error, no foreign request. */
export async function expectCleanPage(p: UiPage): Promise<void> {
  expect(await p.axe()).toEqual([]);
  expect(await p.page.locator('h1').count()).toBe(1);
  expect(p.consoleErrors.join(' / ')).toBe('');
  expect(p.foreignRequests).toEqual([]);
}
