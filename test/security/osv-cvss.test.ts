import { describe, expect, it } from 'vitest';
import { buildAdvisoryDb, supplyChainCheck } from '../../src/security/supply/index.ts';
import { cvss3BaseScore, severityOfScore } from '../../src/security/supply/cvss3.ts';
import { context, stdio } from '../fixtures/osv/context.ts';
import { userAdvisory } from '../fixtures/osv/records.ts';

describe('CVSS v3 base scores for advisories without a GHSA severity', () => {
  it('scores vectors as the specification does (its published examples)', () => {
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toBe(9.8);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:H/I:H/A:H')).toBe(9.6);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N')).toBe(6.1);
    expect(cvss3BaseScore('CVSS:3.0/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N')).toBe(5.5);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N')).toBe(0);
    expect(
      cvss3BaseScore('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:A/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N'),
    ).toBeNull();
    expect(cvss3BaseScore('CVSS:3.1/AV:X/AC:L')).toBeNull();
    expect([9.0, 7.0, 4.0, 0.1, 0].map(severityOfScore)).toEqual([
      'critical',
      'high',
      'medium',
      'low',
      'info',
    ]);
  });

  it('an OSV record with only a CVSS v3 vector gets the rating of its score', () => {
    const db = buildAdvisoryDb(
      [
        userAdvisory('PYSEC-2099-1', {
          database_specific: {},
          severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
        }),
      ],
      'test',
    );
    const [f] = supplyChainCheck(db)(context(stdio('npx', ['acme-mcp@1.0.0'])));
    expect(f).toMatchObject({ rule: 'supply.cve', severity: 'critical', cveId: 'PYSEC-2099-1' });
    expect(f?.description).not.toContain('gives no severity');
  });
});
