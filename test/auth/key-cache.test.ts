import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyService } from '../../src/auth/key-service.ts';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { seededDataDir } from '../helpers/data-dir.ts';

/**
 * Made-up keys must not cost database lookups nor push valid keys out of the cache. Shown with a
 * real store that is closed halfway: whatever still answers after that needed no database.
 */
describe('API key lookups under a flood of made-up keys', () => {
  const dir = seededDataDir('spyglass-keycache-');
  let store: Store;
  let keys: KeyService;
  let valid: string;
  const guessed = `sg_${randomBytes(32).toString('hex')}`;

  beforeAll(async () => {
    // The clock stands still, so cache lifetimes cannot run out however slow the machine is.
    vi.useFakeTimers({ toFake: ['Date'] });
    store = await openStore({ dataDir: dir });
    keys = new KeyService(store.db, []);
    valid = (
      await keys.create({
        name: 'valid',
        role: 'viewer',
        projectId: null,
        expiresAt: null,
        createdBy: 'test',
      })
    ).key;
    expect((await keys.verify(valid))?.role).toBe('viewer');
    expect(await keys.verify(guessed)).toBeNull();
    // More made-up keys than the cache holds.
    for (let i = 0; i < 12_000; i++) expect(await keys.verify(`guess-${i}`)).toBeNull();
    await store.close();
  }, 120_000);
  afterAll(() => {
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a valid key keeps working from the cache: the flood did not evict it', async () => {
    expect((await keys.verify(valid))?.role).toBe('viewer');
  });

  it('a well-formed unknown key is answered from the negative cache the second time', async () => {
    expect(await keys.verify(guessed)).toBeNull();
  });

  it('anything that is not shaped like a key is refused without a lookup', async () => {
    for (const junk of [
      '',
      'x',
      'sg_short',
      `sg_${'Z'.repeat(64)}`,
      `${valid} `,
      `${valid}0`,
      'a'.repeat(10_000),
    ]) {
      expect(await keys.verify(junk)).toBeNull();
    }
  });
});
