import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SURFACE_RULES } from '../../src/security/checks/index.ts';
import { RUG_PULL_RULES, RULES, SHADOWING_RULES } from '../../src/security/poisoning/index.ts';
import { SHADOW_RULE } from '../../src/security/shadow-servers.ts';
import { OWASP_TITLES } from '../../src/security/types.ts';
import { securityDocSection } from './doc-section.ts';

/** docs/security.md lists every check the scanner has, and nothing it does not have. */
const SUPPLY = [
  'supply.cve',
  'supply.legacy-protocol',
  'supply.pipe-to-shell',
  'supply.unpinned',
  'supply.version-unparseable',
];

describe('docs/security.md', () => {
  it('has one table row per implemented rule, with an OWASP category, and no row for anything else', () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z0-9.-]+)` \| (OWASP-MCP-\d\d) \|/gm)];
    const implemented = [
      ...SURFACE_RULES.map((r) => r.id),
      SHADOW_RULE.id,
      ...Object.values(RULES).map((r) => r.id),
      ...SHADOWING_RULES,
      ...RUG_PULL_RULES,
      ...SUPPLY,
    ];
    expect(rows.map((m) => m[1]).sort()).toEqual([...new Set(implemented)].sort());
    for (const m of rows) expect(OWASP_TITLES[m[2] as string], m[0]).toBeDefined();
  });

  it('documents the supply rules in their own section', () => {
    const section = securityDocSection('Supply chain');
    for (const id of SUPPLY) expect(section).toContain(`| \`${id}\` | OWASP-MCP-04 |`);
  });
});
