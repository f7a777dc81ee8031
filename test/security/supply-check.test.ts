import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadAdvisories,
  supplyChainCheck,
  type AdvisoryDb,
} from '../../src/security/supply/index.ts';
import { OWASP_TITLES, type Finding } from '../../src/security/types.ts';
import { context, observed, remote, stdio } from '../fixtures/osv/context.ts';
import { userAdvisory } from '../fixtures/osv/records.ts';

let db: AdvisoryDb;
let dir: string;
beforeAll(async () => {
  db = await loadAdvisories({ advisoriesPath: undefined });
  dir = await mkdtemp(join(tmpdir(), 'spyglass-supply-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const scan = (
  target: Parameters<typeof context>[0],
  observation = observed(),
  advisories = db,
  cwd = process.cwd(),
) => supplyChainCheck(advisories, { cwd })(context(target, observation));
const rules = (f: Finding[]) => f.map((x) => x.rule);
const cves = (f: Finding[]) => f.filter((x) => x.rule === 'supply.cve').map((x) => x.cveId);

describe('supply.cve', () => {
  it('npx -y mcp-remote@0.1.15 is critical CVE-2025-6514; 0.1.16 is clean', () => {
    const [f, ...rest] = scan(
      stdio('npx', ['-y', 'mcp-remote@0.1.15', 'https://mcp.example.test/sse']),
    );
    expect(rest).toEqual([]);
    expect(f).toMatchObject({
      severity: 'critical',
      category: 'OWASP-MCP-04',
      rule: 'supply.cve',
      kind: 'cve',
      cveId: 'CVE-2025-6514',
      title: 'mcp-remote@0.1.15 is affected by CVE-2025-6514 (GHSA-6xpm-ggf7-wc3p)',
      location: 'args[1]',
      evidence: 'mcp-remote@0.1.15',
      toolName: null,
    });
    expect(f?.remediation).toContain('Upgrade mcp-remote to 0.1.16 or later');
    expect(f?.description).toContain('>= 0.0.5, < 0.1.16');
    expect(OWASP_TITLES[f?.category ?? '']).toBe(
      'Software Supply Chain Attacks & Dependency Tampering',
    );
    expect(scan(stdio('npx', ['-y', 'mcp-remote@0.1.16', 'https://mcp.example.test/sse']))).toEqual(
      [],
    );
  });

  it('calendar versions: server-filesystem 2025.3.28 is inside both ranges, 2025.7.1 outside', () => {
    const inside = scan(
      stdio('npx', ['-y', '@modelcontextprotocol/server-filesystem@2025.3.28', '/srv']),
    );
    expect(cves(inside).sort()).toEqual(['CVE-2025-53109', 'CVE-2025-53110']);
    expect(inside.every((f) => f.severity === 'high')).toBe(true);
    expect(inside[0]?.remediation).toContain('2025.7.1');
    expect(
      scan(stdio('npx', ['-y', '@modelcontextprotocol/server-filesystem@2025.7.1', '/srv'])),
    ).toEqual([]);
  });

  it('the installed server-filesystem (node node_modules/…/dist/index.js) is 2026.8.31: not affected', async () => {
    const target = stdio('node', [
      'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
      '/tmp',
    ]);
    expect(scan(target)).toEqual([]);
    // The same launch against an older install is flagged: the version really comes from its package.json.
    const old = join(dir, 'old-install');
    const root = join(old, 'node_modules', '@modelcontextprotocol', 'server-filesystem');
    await mkdir(join(root, 'dist'), { recursive: true });
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({ name: '@modelcontextprotocol/server-filesystem', version: '2025.3.28' }),
    );
    await writeFile(join(root, 'dist', 'index.js'), '');
    const found = scan(target, observed(), db, old);
    expect(cves(found).sort()).toEqual(['CVE-2025-53109', 'CVE-2025-53110']);
    expect(found[0]).toMatchObject({
      location: 'args[0]',
      title: expect.stringContaining(
        '@modelcontextprotocol/server-filesystem@2025.3.28',
      ) as unknown,
    });
  });

  it('uvx --from mcp-server-git==2026.1.0 (PyPI) is affected by CVE-2026-27735, medium', () => {
    const found = scan(
      stdio('uvx', ['--from', 'mcp-server-git==2026.1.0', 'mcp-server-git', '--repository', '.']),
    );
    expect(found).toEqual([
      expect.objectContaining({
        rule: 'supply.cve',
        cveId: 'CVE-2026-27735',
        severity: 'medium',
        title: 'mcp-server-git@2026.1.0 is affected by CVE-2026-27735 (GHSA-vjqx-cfc4-9h6v)',
      }),
    ]);
    expect(scan(stdio('uvx', ['mcp-server-git@2026.1.14']))).toEqual([]);
  });

  it('a malicious release with no fix says so; an advisory without severity is reported as high', async () => {
    const [mal] = scan(stdio('npx', ['postmark-mcp@1.0.16']));
    expect(mal).toMatchObject({ severity: 'critical', cveId: 'SPYGLASS-MAL-2025-0001' });
    expect(mal?.remediation).toContain('No fixed version is published');
    const [sequa] = scan(stdio('npx', ['@sequa-ai/sequa-mcp@1.0.13']));
    expect(sequa).toMatchObject({ severity: 'high', cveId: 'CVE-2025-10619' });
    expect(sequa?.description).toContain('gives no severity');
  });

  it('serverInfo is a weak fallback for stdio launches that map to nothing, never for remote servers', () => {
    const info = observed({ serverInfo: { name: 'mcp-remote', version: '0.1.10' } });
    expect(scan(stdio('/opt/servers/run-it.sh'), info)).toEqual([
      expect.objectContaining({
        rule: 'supply.cve',
        location: 'serverInfo',
        cveId: 'CVE-2025-6514',
      }),
    ]);
    expect(scan(remote('https://mcp.example.test/mcp'), info)).toEqual([]);
    // A name with no advisories is not guessed at.
    expect(
      scan(
        stdio('/opt/servers/run-it.sh'),
        observed({ serverInfo: { name: 'whatever', version: 'x' } }),
      ),
    ).toEqual([]);
    // Nor is an odd version from so weak a source reported.
    expect(
      scan(
        stdio('/opt/servers/run-it.sh'),
        observed({ serverInfo: { name: 'mcp-remote', version: 'dev' } }),
      ),
    ).toEqual([]);
  });
});

describe('supply.version-unparseable', () => {
  it('mcp-remote@banana cannot be checked against its advisory and is reported', () => {
    const found = scan(stdio('npx', ['-y', 'mcp-remote@banana']));
    expect(found).toEqual([
      expect.objectContaining({
        rule: 'supply.version-unparseable',
        severity: 'medium',
        category: 'OWASP-MCP-04',
        location: 'args[1]',
      }),
    ]);
    expect(found[0]?.description).toContain('GHSA-6xpm-ggf7-wc3p');
  });

  it('a bad bound in a user advisory is reported, not taken as "not affected"', async () => {
    const file = join(dir, 'bad-bound.json');
    await writeFile(
      file,
      JSON.stringify(
        userAdvisory('USER-BAD', {
          aliases: ['CVE-2099-0001'],
          affected: [
            {
              package: { ecosystem: 'npm', name: 'acme-mcp' },
              ranges: [
                { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: 'next-release' }] },
              ],
            },
          ],
        }),
      ),
    );
    const withUser = await loadAdvisories({ advisoriesPath: file });
    const found = scan(stdio('npx', ['acme-mcp@1.0.0']), observed(), withUser);
    expect(found).toEqual([
      expect.objectContaining({
        rule: 'supply.version-unparseable',
        title: 'acme-mcp@1.0.0: cannot evaluate CVE-2099-0001',
      }),
    ]);
    expect(found[0]?.description).toContain('"fixed next-release"');
  });

  it('python -m of a package with advisories: the installed version is unknown and that is reported', () => {
    expect(rules(scan(stdio('python3', ['-m', 'mcp_server_git'])))).toEqual([
      'supply.version-unparseable',
    ]);
  });
});

describe('supply.unpinned', () => {
  it('npx -y pkg, pkg@latest, ranges and uvx pkg without version are medium and mention known advisories', () => {
    const latest = scan(stdio('npx', ['-y', 'mcp-remote@latest', 'https://x.test']));
    expect(latest).toEqual([
      expect.objectContaining({
        rule: 'supply.unpinned',
        severity: 'medium',
        kind: 'owasp',
        title: 'mcp-remote is started unpinned through npx',
        location: 'args[1]',
      }),
    ]);
    expect(latest[0]?.description).toContain('the tag "latest"');
    expect(latest[0]?.description).toContain('1 advisory(ies) exist for mcp-remote');
    expect(rules(scan(stdio('npx', ['-y', '@modelcontextprotocol/server-everything'])))).toEqual([
      'supply.unpinned',
    ]);
    expect(rules(scan(stdio('pnpm', ['dlx', '@scope/tool@^1.2.0'])))).toEqual(['supply.unpinned']);
    expect(rules(scan(stdio('uvx', ['mcp-server-git'])))).toEqual(['supply.unpinned']);
    expect(scan(stdio('uvx', ['mcp-server-time==2025.9.1']))).toEqual([]);
  });
});

describe('supply.pipe-to-shell', () => {
  it('curl … | sh is high', () => {
    const found = scan(
      stdio('sh', ['-c', 'curl -fsSL https://get.example.test/install.sh | sh -s -- --serve']),
    );
    expect(found).toEqual([
      expect.objectContaining({
        rule: 'supply.pipe-to-shell',
        severity: 'high',
        location: 'command',
      }),
    ]);
  });

  it('the evidence shows the pipeline with credentials masked', () => {
    const [f] = scan(
      stdio('bash', [
        '-c',
        'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 curl -H "Authorization: Bearer s3cr3t-value-123" https://u:pw@get.example.test/i.sh?api_key=k123 | bash',
      ]),
    );
    expect(f?.rule).toBe('supply.pipe-to-shell');
    expect(f?.evidence).toBe(
      'bash -c GITHUB_TOKEN=*** curl -H "Authorization: ***" https://***@get.example.test/i.sh?api_key=*** | bash',
    );
  });

  it('a bash -c wrapper is high and still maps the package it starts', () => {
    const found = scan(stdio('bash', ['-c', 'npx -y mcp-remote@0.1.15 https://x.test']));
    expect(rules(found).sort()).toEqual(['supply.cve', 'supply.pipe-to-shell']);
    expect(found.find((f) => f.rule === 'supply.pipe-to-shell')).toMatchObject({
      title: 'The server is started through a bash -c wrapper',
      location: 'args[0]',
    });
  });
});

describe('supply.legacy-protocol', () => {
  it('protocol 2024-11-05 and the HTTP+SSE transport are info', () => {
    const old = observed({ protocolVersion: '2024-11-05' });
    expect(scan(remote('https://mcp.example.test/sse', 'sse'), old)).toEqual([
      expect.objectContaining({
        rule: 'supply.legacy-protocol',
        severity: 'info',
        location: 'protocolVersion',
      }),
      expect.objectContaining({
        rule: 'supply.legacy-protocol',
        severity: 'info',
        location: 'transport',
      }),
    ]);
    expect(scan(remote('https://mcp.example.test/mcp'))).toEqual([]);
  });
});
