import { expect } from 'vitest';

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
