import { expect } from 'vitest';
import type { UiPage } from './ui.ts';

/** POST /graphql with an API key (no cookie): the data, failing the test on any error. */
export async function gqlWithKey<D = any>(
  base: string,
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<D> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: D; errors?: unknown[] };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as D;
}

/** Signs in on the dashboard's login page with an API key; resolves when `h1` shows. */
export async function signInWithKey(p: UiPage, key: string, h1: string): Promise<void> {
  await p.page.getByRole('heading', { level: 1, name: 'Sign in to Spyglass' }).waitFor();
  await p.page.getByRole('radio', { name: 'API key' }).check();
  await p.page.locator('#key').fill(key);
  await p.page.getByRole('button', { name: 'Sign in' }).click();
  await p.page.getByRole('heading', { level: 1, name: h1 }).waitFor();
}
