import { describe, expect, it } from 'vitest';
import { SpyglassError } from '../../src/errors.ts';
import { JsonParsePool } from '../../src/receivers/json-pool.ts';

/** The threads that parse large JSON bodies (src/receivers/json-pool.ts). */

const body = (n: number) =>
  Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => ({ i }))));

describe('JSON parse pool', () => {
  it('parses on a thread, tenants taking turns, one body each per round', async () => {
    const pool = new JsonParsePool(1);
    try {
      const done: string[] = [];
      const parse = (name: string, tenant: string) =>
        pool.parse(body(20_000), tenant).then((r) => {
          expect(r.kind).toBe('parts');
          done.push(name);
        });
      await Promise.all([
        parse('a1', 'a'),
        parse('a2', 'a'),
        parse('a3', 'a'),
        parse('a4', 'a'),
        parse('b1', 'b'),
      ]);
      // a1 was on the thread and a2 next in line when b1 came; b1 goes before a3.
      expect(done).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
    } finally {
      await pool.close();
    }
  });

  it('answers 503 for bodies in progress or waiting at shutdown, and for bodies after it', async () => {
    const pool = new JsonParsePool(1);
    const pending = [1, 2, 3].map((i) =>
      pool.parse(body(50_000), `t${i}`).then(
        () => 'parsed',
        (err: SpyglassError) => err.status,
      ),
    );
    await pool.close();
    expect(await Promise.all(pending)).toEqual([503, 503, 503]);
    await expect(pool.parse(body(1), 't')).rejects.toMatchObject({ status: 503 });
  });
});
