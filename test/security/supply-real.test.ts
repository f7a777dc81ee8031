import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observe } from '../helpers/observe.ts';
import { loadAdvisories, supplyChainCheck } from '../../src/security/supply/index.ts';
import type { Observation } from '../../src/security/types.ts';
import { context, stdio } from '../fixtures/osv/context.ts';
import { userAdvisory } from '../fixtures/osv/records.ts';

/** The check on a real observation: the installed server-filesystem devDependency, started and listed. */
let dir: string;
let observation: Observation;
const target = () =>
  stdio(
    process.execPath,
    ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', dir],
    { timeoutSeconds: 20 },
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spyglass-supply-real-'));
  observation = await observe(target(), { signal: AbortSignal.timeout(25_000) });
}, 30_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('supply chain check on a running server', () => {
  it('the real server-filesystem 2026.8.31 has no shipped advisory and speaks a current protocol: no findings', async () => {
    expect(observation.reachable).toBe(true);
    expect(observation.protocolVersion).not.toBe('2024-11-05');
    const db = await loadAdvisories({ advisoriesPath: undefined });
    expect(supplyChainCheck(db)(context(target(), observation))).toEqual([]);
  });

  it('an operator advisory covering the installed version flags the same launch, from its package.json', async () => {
    const file = join(dir, 'local.json');
    const advisory = userAdvisory('LOCAL-2026-1', {
      aliases: ['CVE-2026-99999'],
      database_specific: { severity: 'HIGH' },
      affected: [
        {
          package: { ecosystem: 'npm', name: '@modelcontextprotocol/server-filesystem' },
          ranges: [
            { type: 'ECOSYSTEM', events: [{ introduced: '2026.1.0' }, { fixed: '2026.09.01' }] },
          ],
        },
      ],
    });
    await writeFile(file, JSON.stringify(advisory));
    const db = await loadAdvisories({ advisoriesPath: file });
    expect(supplyChainCheck(db)(context(target(), observation))).toEqual([
      expect.objectContaining({
        rule: 'supply.cve',
        severity: 'high',
        cveId: 'CVE-2026-99999',
        title:
          '@modelcontextprotocol/server-filesystem@2026.8.31 is affected by CVE-2026-99999 (LOCAL-2026-1)',
        location: 'args[0]',
        remediation:
          'Upgrade @modelcontextprotocol/server-filesystem to 2026.09.01 or later and pin that version in the launch command.',
      }),
    ]);
  });
});
