/**
 * The part of the OSV schema (ossf.github.io/osv-schema) that CVE lookup reads, and the indexed
 * advisory set it reads from. Only npm and PyPI packages are indexed: they are the ecosystems an
 * MCP launch command can name (docs/security.md#which-package-a-server-runs).
 */
export type Ecosystem = 'npm' | 'PyPI';

export type OsvEvent =
  { introduced: string } | { fixed: string } | { last_affected: string } | { limit: string };

export interface OsvRange {
  type: 'SEMVER' | 'ECOSYSTEM' | 'GIT';
  events: OsvEvent[];
}

export interface OsvAffected {
  package?: { ecosystem: string; name: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
  database_specific?: Record<string, unknown>;
}

export interface OsvRecord {
  id: string;
  aliases?: string[];
  summary?: string;
  details?: string;
  published?: string;
  modified?: string;
  withdrawn?: string;
  severity?: { type: string; score: string }[];
  affected?: OsvAffected[];
  references?: { type: string; url: string }[];
  database_specific?: { severity?: string } & Record<string, unknown>;
}

/** One advisory as it applies to one package: the record and the affected entry naming that package. */
export interface PackageAdvisory {
  record: OsvRecord;
  affected: OsvAffected;
}

/** Advisories by `ecosystem:normalised name`, so a lookup is one map read. */
export interface AdvisoryDb {
  /** Every record applied, by id (withdrawn ones included, so a later set can replace them). */
  records: ReadonlyMap<string, OsvRecord>;
  byPackage: ReadonlyMap<string, readonly PackageAdvisory[]>;
  /** Records indexed (withdrawn ones and ones naming no npm/PyPI package are not). */
  count: number;
  /** Where the records came from, in the order they were applied (later replaces earlier by id). */
  sources: readonly string[];
}

/** npm names are case-insensitive in practice; PyPI names are compared after PEP 503 normalisation. */
export function normalizeName(ecosystem: Ecosystem, name: string): string {
  return ecosystem === 'PyPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name.toLowerCase();
}

export function packageKey(ecosystem: Ecosystem, name: string): string {
  return `${ecosystem}:${normalizeName(ecosystem, name)}`;
}

export function advisoriesFor(
  db: AdvisoryDb,
  ecosystem: Ecosystem,
  name: string,
): readonly PackageAdvisory[] {
  return db.byPackage.get(packageKey(ecosystem, name)) ?? [];
}
