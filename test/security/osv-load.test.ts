import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advisoriesFor,
  loadAdvisories,
  SHIPPED_ADVISORIES,
  type AdvisoryDb,
} from '../../src/security/supply/index.ts';
import { userAdvisory } from '../fixtures/osv/records.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spyglass-osv-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const json = (v: unknown) => JSON.stringify(v);
const ids = (db: AdvisoryDb, name: string, eco: 'npm' | 'PyPI' = 'npm') =>
  advisoriesFor(db, eco, name)
    .map((a) => a.record.id)
    .sort();

describe('loadAdvisories', () => {
  it('ships every advisory of security-notes §3e, indexed by ecosystem and normalised name', async () => {
    const db = await loadAdvisories({ advisoriesPath: undefined });
    expect(db.sources).toEqual([SHIPPED_ADVISORIES]);
    expect(db.count).toBe(14);
    expect(ids(db, 'mcp-remote')).toEqual(['GHSA-6xpm-ggf7-wc3p']);
    expect(ids(db, '@modelcontextprotocol/server-filesystem')).toEqual([
      'GHSA-hc55-p739-j48w',
      'GHSA-q66q-fx2p-7w4m',
    ]);
    expect(ids(db, '@modelcontextprotocol/inspector')).toHaveLength(2);
    expect(ids(db, '@modelcontextprotocol/sdk')).toHaveLength(2);
    // PEP 503: underscores, dots and case do not matter for PyPI names.
    expect(ids(db, 'MCP_Server.Git', 'PyPI')).toEqual([
      'CVE-2025-68143',
      'CVE-2025-68144',
      'CVE-2025-68145',
      'GHSA-vjqx-cfc4-9h6v',
    ]);
    expect(ids(db, 'mcp', 'PyPI')).toEqual(['GHSA-9h52-p55h-vw2f']);
    const fs = advisoriesFor(db, 'npm', '@modelcontextprotocol/server-filesystem')[0];
    expect(fs?.affected.ranges?.[0]?.events).toEqual([{ introduced: '0' }, { fixed: '2025.7.1' }]);
  });

  it('extends the shipped set from a JSON file: one record, or an array; the same id replaces', async () => {
    const one = join(dir, 'one.json');
    await writeFile(one, json(userAdvisory('USER-1')));
    expect(ids(await loadAdvisories({ advisoriesPath: one }), 'acme-mcp')).toEqual(['USER-1']);

    const many = join(dir, 'many.json');
    const replaced = {
      ...userAdvisory('GHSA-6xpm-ggf7-wc3p'),
      affected: [{ package: { ecosystem: 'npm', name: 'mcp-remote' }, versions: ['9.9.9'] }],
    };
    await writeFile(many, json([userAdvisory('USER-2'), replaced]));
    const db = await loadAdvisories({ advisoriesPath: many });
    expect(ids(db, 'acme-mcp')).toEqual(['USER-2']);
    expect(advisoriesFor(db, 'npm', 'mcp-remote')[0]?.affected.versions).toEqual(['9.9.9']);
    expect(db.count).toBe(15);
  });

  it('reads a directory of OSV files, nested folders included, and leaves withdrawn records out', async () => {
    const d = join(dir, 'export');
    await mkdir(join(d, '2026', '01'), { recursive: true });
    await writeFile(join(d, 'USER-3.json'), json(userAdvisory('USER-3')));
    await writeFile(join(d, '2026', '01', 'USER-4.json'), json(userAdvisory('USER-4')));
    await writeFile(
      join(d, 'USER-5.json'),
      json(userAdvisory('USER-5', { withdrawn: '2026-02-01T00:00:00Z' })),
    );
    await writeFile(join(d, 'README.md'), 'not an advisory');
    // A withdrawn record with a shipped id takes the shipped advisory out too.
    await writeFile(
      join(d, 'withdrawn.json'),
      json({ ...userAdvisory('GHSA-w48q-cv73-mx4w'), withdrawn: '2026-03-01T00:00:00Z' }),
    );
    const db = await loadAdvisories({ advisoriesPath: d });
    expect(ids(db, 'acme-mcp')).toEqual(['USER-3', 'USER-4']);
    expect(ids(db, '@modelcontextprotocol/sdk')).toEqual(['GHSA-345p-7cg4-v4c7']);
  });

  it('reads an OSV export zip (as osv.dev publishes npm/all.zip)', async () => {
    const zip = join(dir, 'all.zip');
    await writeFile(
      zip,
      zipSync({
        'USER-6.json': strToU8(json(userAdvisory('USER-6'))),
        'USER-7.json': strToU8(json(userAdvisory('USER-7'))),
        LICENSE: strToU8('x'),
      }),
    );
    expect(ids(await loadAdvisories({ advisoriesPath: zip }), 'acme-mcp')).toEqual([
      'USER-6',
      'USER-7',
    ]);
  });

  it('refuses a zip beyond the entry and size limits, saying which limit', async () => {
    const zip = join(dir, 'big.zip');
    const files: Record<string, Uint8Array> = {};
    // Long, repetitive details: small on disk, large once inflated (what a zip bomb exploits).
    for (let i = 0; i < 5; i++)
      files[`U-${i}.json`] = strToU8(json(userAdvisory(`U-${i}`, { details: 'x'.repeat(5000) })));
    await writeFile(zip, zipSync(files));
    await expect(
      loadAdvisories(
        { advisoriesPath: zip },
        { maxEntries: 3, maxEntryBytes: 1e6, maxTotalBytes: 1e9 },
      ),
    ).rejects.toThrow(`advisories: ${zip}: refused: more than 3 JSON entries`);
    await expect(
      loadAdvisories(
        { advisoriesPath: zip },
        { maxEntries: 10, maxEntryBytes: 4000, maxTotalBytes: 1e9 },
      ),
    ).rejects.toThrow(/refused: entry U-0\.json is \d+ bytes, more than 4000/);
    await expect(
      loadAdvisories(
        { advisoriesPath: zip },
        { maxEntries: 10, maxEntryBytes: 1e6, maxTotalBytes: 12_000 },
      ),
    ).rejects.toThrow(/refused: more than 12000 bytes uncompressed/);
  });

  it('names the file for bad JSON, a record that is not OSV, a broken zip and a missing path', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"id": "X",');
    await expect(loadAdvisories({ advisoriesPath: bad })).rejects.toThrow(
      `advisories: ${bad}: not valid JSON`,
    );
    const notOsv = join(dir, 'not-osv.json');
    await writeFile(notOsv, json([userAdvisory('OK'), { summary: 'no id' }]));
    await expect(loadAdvisories({ advisoriesPath: notOsv })).rejects.toThrow(
      `advisories: ${notOsv}: record 1 is not an OSV record`,
    );
    const zip = join(dir, 'bad-entry.zip');
    await writeFile(zip, zipSync({ 'X.json': strToU8('nope') }));
    await expect(loadAdvisories({ advisoriesPath: zip })).rejects.toThrow(
      `advisories: ${zip}!X.json: not valid JSON`,
    );
    const broken = join(dir, 'broken.zip');
    await writeFile(broken, Buffer.from('PK\u0003\u0004garbage'));
    await expect(loadAdvisories({ advisoriesPath: broken })).rejects.toThrow(
      `advisories: ${broken}: not a readable zip`,
    );
    await expect(loadAdvisories({ advisoriesPath: join(dir, 'missing.json') })).rejects.toThrow(
      'no such file or directory',
    );
  });
});
