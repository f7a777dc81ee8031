import type { Check, Finding, Observation, ScanContext } from '../types.ts';
import { cveFindings } from './cve-findings.ts';
import { launchPackage, type LaunchOptions, type PackageRef } from './launch-package.ts';
import {
  legacyProtocolFindings,
  pipeToShellFindings,
  unpinnedFindings,
} from './launch-findings.ts';
import { isExactVersion } from './osv-range.ts';
import { advisoriesFor, type AdvisoryDb, type Ecosystem } from './osv-types.ts';

/**
 * The OWASP-MCP-04 check: which package the server runs (launch command first, serverInfo only as
 * a weak fallback for stdio servers), its known advisories, and the launch's hygiene. It reads the
 * config and the observation only: nothing is downloaded or run.
 */
export function supplyChainCheck(db: AdvisoryDb, opts: LaunchOptions = {}): Check {
  return (ctx: ScanContext): Finding[] => {
    const ref =
      launchPackage(ctx.target, opts) ??
      (ctx.target.transport === 'stdio' ? serverInfoPackage(ctx.observation, db) : null);
    return [
      ...(ref ? cveFindings(ref, db) : []),
      ...(ref ? unpinnedFindings(ref, db) : []),
      ...pipeToShellFindings(ctx.target),
      ...legacyProtocolFindings(ctx.target, ctx.observation),
    ];
  };
}

/**
 * serverInfo `{name, version}` as a package, only when that name has advisories: servers rarely
 * report their package name (docs/security.md#which-package-a-server-runs), so this is a last resort, never a source of
 * "unpinned" or "unknown version" noise. Remote servers are not mapped at all (the caller's rule).
 */
export function serverInfoPackage(observation: Observation, db: AdvisoryDb): PackageRef | null {
  const name = observation.serverInfo?.name;
  const version = observation.serverInfo?.version;
  if (typeof name !== 'string' || typeof version !== 'string') return null;
  const ecosystem = (['npm', 'PyPI'] as Ecosystem[]).find(
    (e) => advisoriesFor(db, e, name).length > 0,
  );
  if (!ecosystem) return null;
  if (!isExactVersion(ecosystem, version)) return null; // too weak a source to report an odd version from
  return {
    ecosystem,
    name,
    version,
    spec: `${name}@${version}`,
    pinned: true,
    source: 'serverInfo',
    location: 'serverInfo',
    launcher: null,
    versionKind: 'exact',
  };
}
