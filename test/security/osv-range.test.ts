import { describe, expect, it } from 'vitest';
import { evaluateAffected } from '../../src/security/supply/osv-range.ts';
import type { OsvAffected, OsvEvent } from '../../src/security/supply/osv-types.ts';
import { comparePep440, parsePep440 } from '../../src/security/supply/pep440.ts';

const eco = (events: OsvEvent[], extra: Partial<OsvAffected> = {}): OsvAffected => ({
  ranges: [{ type: 'ECOSYSTEM', events }],
  ...extra,
});

describe('OSV range evaluation', () => {
  it('introduced is inclusive, fixed exclusive, "0" is the beginning', () => {
    const a = eco([{ introduced: '0.0.5' }, { fixed: '0.1.16' }]);
    expect(evaluateAffected('npm', '0.0.4', a).status).toBe('unaffected');
    expect(evaluateAffected('npm', '0.0.5', a)).toEqual({
      status: 'affected',
      range: '>= 0.0.5, < 0.1.16',
      fixed: '0.1.16',
    });
    expect(evaluateAffected('npm', '0.1.15', a).status).toBe('affected');
    expect(evaluateAffected('npm', '0.1.16', a).status).toBe('unaffected');
    expect(
      evaluateAffected('npm', '0.0.1', eco([{ introduced: '0' }, { fixed: '1.0.0' }])).status,
    ).toBe('affected');
  });

  it('last_affected is inclusive and limit caps the range', () => {
    const a = eco([{ introduced: '1.10.0' }, { last_affected: '1.25.3' }]);
    expect(evaluateAffected('npm', '1.25.3', a).status).toBe('affected');
    expect(evaluateAffected('npm', '1.26.0', a).status).toBe('unaffected');
    const limited = eco([{ introduced: '0' }, { limit: '2.0.0' }]);
    expect(evaluateAffected('npm', '1.9.9', limited).status).toBe('affected');
    expect(evaluateAffected('npm', '2.0.0', limited).status).toBe('unaffected');
  });

  it('events are sorted before evaluation, and several introduced/fixed pairs are separate windows', () => {
    const a = eco([
      { fixed: '2.0.1' },
      { introduced: '2.0.0' },
      { fixed: '1.0.1' },
      { introduced: '1.0.0' },
    ]);
    expect(evaluateAffected('npm', '1.0.0', a).status).toBe('affected');
    expect(evaluateAffected('npm', '1.5.0', a).status).toBe('unaffected');
    expect(evaluateAffected('npm', '2.0.0', a)).toMatchObject({
      status: 'affected',
      fixed: '2.0.1',
    });
  });

  it('an explicit versions list matches exactly, even without ranges', () => {
    const a: OsvAffected = { versions: ['1.0.16'] };
    expect(evaluateAffected('npm', '1.0.16', a).status).toBe('affected');
    expect(evaluateAffected('npm', '1.0.15', a).status).toBe('unaffected');
  });

  it('calendar versions order by number: leading zeros and the 0.x to 2025.x switch do not break it', () => {
    const fs = eco([{ introduced: '0' }, { fixed: '2025.7.1' }]);
    expect(evaluateAffected('npm', '0.6.2', fs).status).toBe('affected');
    expect(evaluateAffected('npm', '2025.3.28', fs).status).toBe('affected');
    expect(evaluateAffected('npm', '2025.07.01', fs).status).toBe('unaffected');
    expect(evaluateAffected('npm', '2025.7.1', fs).status).toBe('unaffected');
    expect(evaluateAffected('npm', '2026.8.31', fs).status).toBe('unaffected');
    // A range written only in old semver terms misses the calendar releases, as docs/security.md#how-cve-lookup-works-offline warns.
    expect(
      evaluateAffected('npm', '2025.3.28', eco([{ introduced: '0' }, { fixed: '0.6.4' }])).status,
    ).toBe('unaffected');
    const git = eco([{ introduced: '0' }, { fixed: '2026.1.14' }]);
    expect(evaluateAffected('PyPI', '2026.1.0', git).status).toBe('affected');
    expect(evaluateAffected('PyPI', '2026.01.13', git).status).toBe('affected');
    expect(evaluateAffected('PyPI', '2026.1.14', git).status).toBe('unaffected');
  });

  it('SEMVER ranges of a PyPI package compare as semver; GIT ranges are skipped', () => {
    const a: OsvAffected = {
      ranges: [
        { type: 'GIT', events: [{ introduced: 'abc123' }] },
        { type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.23.0' }] },
      ],
    };
    expect(evaluateAffected('PyPI', '1.22.9', a).status).toBe('affected');
    expect(evaluateAffected('PyPI', '1.23.0', a).status).toBe('unaffected');
  });

  it('an entry with only commit (GIT) ranges cannot be judged by version and says so', () => {
    const a: OsvAffected = {
      ranges: [{ type: 'GIT', events: [{ introduced: 'abc123' }, { fixed: 'def456' }] }],
    };
    expect(evaluateAffected('npm', '1.0.0', a)).toEqual({
      status: 'unparseable',
      what: 'bound',
      value: 'a GIT (commit) range only',
    });
    expect(evaluateAffected('npm', '1.0.0', {})).toMatchObject({
      status: 'affected',
      range: 'all versions',
    });
  });

  it('an unparseable version or bound is an outcome of its own, never "unaffected"', () => {
    expect(
      evaluateAffected('npm', 'banana', eco([{ introduced: '0' }, { fixed: '1.0.0' }])),
    ).toEqual({ status: 'unparseable', what: 'version', value: 'banana' });
    expect(evaluateAffected('npm', '1.0.0', eco([{ introduced: '0' }, { fixed: 'soon' }]))).toEqual(
      { status: 'unparseable', what: 'bound', value: 'fixed soon' },
    );
    expect(evaluateAffected('PyPI', '1.0', eco([{ introduced: 'x.y' }]))).toMatchObject({
      status: 'unparseable',
      what: 'bound',
    });
  });
});

describe('PEP 440 ordering', () => {
  const order = [
    '1.0.dev1',
    '1.0a1',
    '1.0a2.dev1',
    '1.0a2',
    '1.0b1',
    '1.0rc1',
    '1.0',
    '1.0+local.1',
    '1.0.post1',
    '1.1',
    '1!0.1',
  ];
  it('orders dev, pre, final, local, post and epoch releases as PEP 440 says', () => {
    const parsed = order.map((v) => parsePep440(v));
    expect(parsed.every((p) => p !== null)).toBe(true);
    for (let i = 1; i < parsed.length; i++)
      expect(
        comparePep440(parsed[i - 1]!, parsed[i]!),
        `${order[i - 1]} < ${order[i]}`,
      ).toBeLessThan(0);
  });

  it('normalises spellings and trailing zeros', () => {
    const eq = (a: string, b: string) => comparePep440(parsePep440(a)!, parsePep440(b)!);
    expect(eq('1.0', '1.0.0')).toBe(0);
    expect(eq('1.0alpha1', '1.0a1')).toBe(0);
    expect(eq('1.0-1', '1.0.post1')).toBe(0);
    expect(eq('v2026.01.14', '2026.1.14')).toBe(0);
    expect(parsePep440('banana')).toBeNull();
  });
});
