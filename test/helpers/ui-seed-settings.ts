import { expect } from 'vitest';
import type { UiPage } from './ui.ts';

/** What every page test checks before it closes: accessible, one h1, no console error, no foreign request. */
export async function expectCleanPage(p: UiPage): Promise<void> {
  expect(await p.axe()).toEqual([]);
  expect(await p.page.locator('h1').count()).toBe(1);
  expect(p.consoleErrors.join(' / ')).toBe('');
  expect(p.foreignRequests).toEqual([]);
}
