import semver from 'semver';
import { comparePep440, parsePep440 } from './pep440.ts';
import type { Ecosystem, OsvAffected, OsvEvent, OsvRange } from './osv-types.ts';

/**
 * Whether one version falls in an OSV `affected` entry (ossf osv-schema "Evaluation"): events are
 * sorted, `introduced` is inclusive ("0" = from the beginning), `fixed` exclusive, `last_affected`
 * inclusive, `limit` an upper bound; `versions[]` lists exact versions. npm orders by semver (GHSA
 * exports npm as ECOSYSTEM but means semver), PyPI by PEP 440. A version or bound that cannot be
 * ordered is an outcome of its own: the caller reports it rather than guessing.
 */
export type RangeOutcome =
  | { status: 'affected'; range: string; fixed: string | null }
  | { status: 'unaffected' }
  | { status: 'unparseable'; what: 'version' | 'bound'; value: string };

interface Scheme<T> {
  parse(text: string): T | null;
  compare(a: T, b: T): number;
}

// Loose semver reads leading zeros (2025.07.01) and a `v` prefix; one- and two-part numbers are padded.
const SEMVER: Scheme<semver.SemVer> = {
  parse: (text) => {
    const t = text.trim();
    const padded = /^\d+(\.\d+)?$/.test(t)
      ? `${t}${'.0'.repeat(2 - (t.split('.').length - 1))}`
      : t;
    return semver.parse(padded, { loose: true });
  },
  compare: (a, b) => a.compare(b),
};
const PEP440: Scheme<ReturnType<typeof parsePep440> & object> = {
  parse: parsePep440,
  compare: comparePep440,
};

function schemeFor(ecosystem: Ecosystem, range: OsvRange): Scheme<unknown> {
  return (range.type === 'ECOSYSTEM' && ecosystem === 'PyPI' ? PEP440 : SEMVER) as Scheme<unknown>;
}

/** True when the text names one version of the ecosystem (npm `1` is a range there, so no padding). */
export function isExactVersion(ecosystem: Ecosystem, text: string): boolean {
  return ecosystem === 'PyPI'
    ? PEP440.parse(text) !== null
    : semver.valid(text, { loose: true }) !== null;
}

export function evaluateAffected(
  ecosystem: Ecosystem,
  version: string,
  affected: OsvAffected,
): RangeOutcome {
  if (affected.versions?.includes(version))
    return { status: 'affected', range: `listed version ${version}`, fixed: null };
  if ((affected.ranges ?? []).length === 0 && !affected.versions)
    return { status: 'affected', range: 'all versions', fixed: null };
  const ranges = (affected.ranges ?? []).filter((r) => r.type !== 'GIT'); // commit ranges name no package version
  if (ranges.length === 0 && !affected.versions)
    return { status: 'unparseable', what: 'bound', value: 'a GIT (commit) range only' };
  let unparseable: RangeOutcome | null = null;
  for (const range of ranges) {
    const outcome = evaluateRange(schemeFor(ecosystem, range), version, range);
    if (outcome.status === 'affected') return outcome;
    if (outcome.status === 'unparseable') unparseable ??= outcome;
  }
  return unparseable ?? { status: 'unaffected' };
}

type Bound = {
  kind: 'introduced' | 'fixed' | 'last_affected' | 'limit';
  text: string;
  value: unknown;
};

function evaluateRange<T>(scheme: Scheme<T>, version: string, range: OsvRange): RangeOutcome {
  const v = scheme.parse(version);
  if (v === null) return { status: 'unparseable', what: 'version', value: version };
  const bounds: Bound[] = [];
  for (const event of range.events) {
    const [kind, text] = eventParts(event);
    const value = kind === 'introduced' && text === '0' ? null : scheme.parse(text);
    if (value === null && !(kind === 'introduced' && text === '0'))
      return { status: 'unparseable', what: 'bound', value: `${kind} ${text}` };
    bounds.push({ kind, text, value });
  }
  // "0" sorts first; otherwise by version. null value = "0".
  const cmp = (a: unknown, b: unknown) =>
    a === null ? (b === null ? 0 : -1) : b === null ? 1 : scheme.compare(a as T, b as T);
  bounds.sort((a, b) => cmp(a.value, b.value));
  const limits = bounds.filter((b) => b.kind === 'limit');
  if (limits.length > 0 && !limits.some((l) => cmp(v, l.value) < 0))
    return { status: 'unaffected' };
  let affected = false;
  for (const b of bounds) {
    if (b.kind === 'introduced' && cmp(v, b.value) >= 0) affected = true;
    else if (b.kind === 'fixed' && cmp(v, b.value) >= 0) affected = false;
    else if (b.kind === 'last_affected' && cmp(v, b.value) > 0) affected = false;
  }
  if (!affected) return { status: 'unaffected' };
  const fixed = bounds.find((b) => b.kind === 'fixed' && cmp(v, b.value) < 0)?.text ?? null;
  return { status: 'affected', range: describeRange(bounds), fixed };
}

function eventParts(event: OsvEvent): [Bound['kind'], string] {
  if ('introduced' in event) return ['introduced', event.introduced];
  if ('fixed' in event) return ['fixed', event.fixed];
  if ('last_affected' in event) return ['last_affected', event.last_affected];
  return ['limit', event.limit];
}

function describeRange(bounds: Bound[]): string {
  return bounds
    .map((b) =>
      b.kind === 'introduced'
        ? `>= ${b.text}`
        : b.kind === 'last_affected'
          ? `<= ${b.text}`
          : `< ${b.text}`,
    )
    .join(', ');
}
