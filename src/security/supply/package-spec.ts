import semver from 'semver';
import { isExactVersion } from './osv-range.ts';
import type { Ecosystem } from './osv-types.ts';

/**
 * Package specs as launchers write them (`@scope/pkg@1.2.3`, `pkg@latest`, `name==1.0`,
 * `name[extra]>=2`), split into name and version text, and what kind of version that is:
 * only an exact version is pinned; a tag or range resolves at every launch (S-UNPINNED).
 */
export type VersionKind = 'exact' | 'range' | 'tag' | 'none' | 'invalid';

export interface ParsedSpec {
  name: string;
  version: string | null;
  kind: VersionKind;
}

// npm dist-tags in common use; any other word is neither a version nor a range and is reported as such.
const NPM_TAGS = new Set([
  'latest',
  'next',
  'beta',
  'alpha',
  'canary',
  'rc',
  'experimental',
  'nightly',
  'dev',
  'insiders',
  'stable',
]);
const NPM_NAME = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9~][\w.~-]*$/i;

/** null when the spec is not a registry package (git URL, tarball, local path, `user/repo`). */
export function parseNpmSpec(spec: string): ParsedSpec | null {
  // The version starts at the last `@` that is not the scope's leading one (docs/security.md#which-package-a-server-runs).
  const at = spec.lastIndexOf('@');
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : null;
  if (!NPM_NAME.test(name)) return null;
  if (version === null || version === '') return { name, version: null, kind: 'none' };
  if (NPM_TAGS.has(version)) return { name, version, kind: 'tag' };
  if (isExactVersion('npm', version)) return { name, version, kind: 'exact' };
  return { name, version, kind: semver.validRange(version) !== null ? 'range' : 'invalid' };
}

const PY_NAME = /^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$/;

/** `name`, `name==1.0`, `name===1.0`, `name@1.0` (uvx), `name[extra]>=1,<2`; null when not a registry package. */
export function parsePypiSpec(spec: string): ParsedSpec | null {
  if (spec.includes('://') || /^(git\+|\.|\/|~)/.test(spec)) return null; // VCS URL, direct reference or local path
  const m = PY_NAME.exec(spec.trim());
  if (!m || m[1] === undefined) return null;
  const name = m[1];
  const rest = (m[3] ?? '').trim();
  if (rest === '') return { name, version: null, kind: 'none' };
  const exact = /^(?:===?|@)\s*([^,;\s]+)$/.exec(rest);
  if (exact?.[1] !== undefined) {
    const version = exact[1];
    if (version === 'latest') return { name, version, kind: 'tag' };
    if (version.includes('*')) return { name, version: rest, kind: 'range' };
    return { name, version, kind: isExactVersion('PyPI', version) ? 'exact' : 'invalid' };
  }
  return { name, version: rest, kind: /^(~=|!=|<=?|>=?)/.test(rest) ? 'range' : 'invalid' };
}

export function parseSpec(ecosystem: Ecosystem, spec: string): ParsedSpec | null {
  return ecosystem === 'npm' ? parseNpmSpec(spec) : parsePypiSpec(spec);
}
