import { expect } from 'vitest';

interface Page<J> {
  json: J;
  nextCursor: string | null;
}

/**
 * A read written as bytes (a service's `…Json`) against its domain form through JSON.stringify:
 * for each of `queries` and then every page of the list `pageOf(cursor)` walks, the same bytes and
 * the same next cursor. Returns how many queries it checked.
 */
export async function expectPagesAsBytes<Q>(
  queries: readonly Q[],
  pageOf: (cursor: string | undefined) => Q,
  asObjects: (q: Q) => Promise<Page<string>>,
  asBytes: (q: Q) => Promise<Page<Buffer>>,
): Promise<number> {
  const all = [...queries];
  let cursor: string | undefined;
  do {
    const q = pageOf(cursor);
    all.push(q);
    cursor = (await asObjects(q)).nextCursor ?? undefined;
  } while (cursor);
  for (const q of all) {
    const want = await asObjects(q);
    const got = await asBytes(q);
    expect(got.json.toString('utf8')).toBe(want.json);
    expect(got.json.equals(Buffer.from(want.json, 'utf8'))).toBe(true);
    expect(got.nextCursor).toBe(want.nextCursor);
  }
  return all.length;
}
