import { describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { CatalogService } from '../../src/catalog/catalog-service.ts';
import { SpyglassError } from '../../src/errors.ts';
import { createOutboundPolicy } from '../../src/net/outbound-policy.ts';
import { useRepoStore } from '../helpers/repo-store.ts';

/**
 * CatalogService checks a write's values itself, so REST, GraphQL and any later adapter refuse
 * the same entries with the same issues, and store nothing.
 */
describe('CatalogService', () => {
  const db = useRepoStore('pglite');
  const catalog = () =>
    new CatalogService(db(), {
      servers: [],
      policy: createOutboundPolicy([]),
      maxServersWithUrl: 10,
    });
  const issues = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpyglassError);
    return (err as SpyglassError).issues?.map((i) => [i.loc.join('.'), i.type]);
  };

  it('refuses a status, transport or url outside the allowed ones, every problem at once', async () => {
    expect(await issues(catalog().put(LOCAL_ADMIN, 'agent', 'a1', { status: 'retired' }))).toEqual([
      ['body.status', 'enum'],
    ]);
    expect(
      await issues(
        catalog().put(LOCAL_ADMIN, 'server', 's1', { transport: 'carrier-pigeon', url: 'ftp://x' }),
      ),
    ).toEqual([
      ['body.transport', 'enum'],
      ['body.url', 'url_parsing'],
    ]);
    expect(
      await issues(catalog().put(LOCAL_ADMIN, 'server', 's1', { description: 'd'.repeat(70_000) })),
    ).toEqual([['body', 'too_large']]);
    await expect(catalog().get(LOCAL_ADMIN, 'server', 's1')).rejects.toThrow(/no server s1/);
  });

  it('stores what passes: an agent keeps only agent fields', async () => {
    const entry = await catalog().put(LOCAL_ADMIN, 'agent', 'a2', {
      status: 'deprecated',
      tags: ['x'],
      transport: 'sse',
    });
    expect(entry).toMatchObject({ name: 'a2', status: 'deprecated', tags: ['x'] });
    expect(entry).not.toHaveProperty('transport');
  });
});
