import { describe, expect, it } from 'vitest';
import { SpyglassError } from '../../src/errors.ts';
import { KnownProjects } from '../../src/ingest/known-projects.ts';

describe('the project check before ingest', () => {
  it('asks again only after the cache time, and 404s an unknown project', async () => {
    const existing = new Set(['default', 'p1']);
    const asked: string[] = [];
    let now = 0;
    const known = new KnownProjects(
      async (id) => (asked.push(id), existing.has(id)),
      5000,
      () => now,
    );
    await known.check(['p1', 'p1', 'default']);
    await known.check(['p1']);
    expect(asked).toEqual(['p1', 'default']);
    now = 5001;
    await known.check(['p1']);
    expect(asked).toEqual(['p1', 'default', 'p1']);
    await expect(known.check(['ghost'])).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('"ghost" does not exist'),
    });
  });

  it('turns an unreachable database into 503 + Retry-After (exporters retry), not an internal error', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const known = new KnownProjects(async () => {
      throw down;
    });
    const err = await known.check(['p1']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpyglassError);
    expect(err).toMatchObject({
      status: 503,
      retryAfter: 5,
      message: 'storage unavailable, retry later',
    });
  });
});
