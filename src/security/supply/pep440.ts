/**
 * PEP 440 versions for PyPI advisories: parse and compare (epoch, release, pre, post, dev, local).
 * No PEP 440 library is installed and the rules are small; ranges are OSV's job, not PEP 440
 * specifiers, so only ordering is needed here. Calendar versions (2026.1.14, 2025.07.01) are
 * plain release segments: leading zeros are numbers, not text.
 */
export interface Pep440Version {
  epoch: number;
  release: number[];
  pre: { rank: number; n: number } | null;
  post: number | null;
  dev: number | null;
  local: (number | string)[] | null;
}

// Spellings PEP 440 normalises: alpha→a, beta→b, c/pre/preview→rc; separators . - _ are optional.
const PRE_RANK: Record<string, number> = {
  a: 0,
  alpha: 0,
  b: 1,
  beta: 1,
  c: 2,
  rc: 2,
  pre: 2,
  preview: 2,
};
const VERSION =
  /^v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(alpha|beta|preview|pre|rc|a|b|c)[-_.]?(\d*))?(?:-(\d+)|[-_.]?(?:post|rev|r)[-_.]?(\d*))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$/;

/** null when the text is not a PEP 440 version (the caller reports it; nothing is guessed). */
export function parsePep440(text: string): Pep440Version | null {
  const m = VERSION.exec(text.trim().toLowerCase());
  if (!m) return null;
  const [, epoch, release = '0', preL, preN, postImplicit, postN, devN, local] = m;
  const release_ = release.split('.').map(Number);
  while (release_.length > 1 && release_[release_.length - 1] === 0) release_.pop();
  const postText = postImplicit ?? postN;
  return {
    epoch: epoch === undefined ? 0 : Number(epoch),
    release: release_,
    pre: preL === undefined ? null : { rank: PRE_RANK[preL] ?? 2, n: Number(preN || 0) },
    post: postText === undefined ? null : Number(postText || 0),
    dev: devN === undefined ? null : Number(devN || 0),
    local:
      local === undefined
        ? null
        : local.split(/[-_.]/).map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
  };
}

/** Negative when a < b, zero when equal, positive when a > b (PEP 440 "Summary of permitted suffixes"). */
export function comparePep440(a: Pep440Version, b: Pep440Version): number {
  return (
    a.epoch - b.epoch ||
    compareRelease(a.release, b.release) ||
    preKey(a) - preKey(b) ||
    compareNullable(a.pre?.n ?? null, b.pre?.n ?? null) ||
    (a.post ?? -1) - (b.post ?? -1) ||
    (a.dev ?? Infinity) - (b.dev ?? Infinity) ||
    compareLocal(a.local, b.local)
  );
}

function compareRelease(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

// A dev release of a final version (1.0.dev1) sorts before its pre-releases (1.0a1); a final or
// post release sorts after them.
function preKey(v: Pep440Version): number {
  if (v.pre) return v.pre.rank;
  if (v.dev !== null && v.post === null) return -1;
  return 3;
}

function compareNullable(a: number | null, b: number | null): number {
  return (a ?? 0) - (b ?? 0);
}

// Numeric local segments sort after alphanumeric ones; a version with a local label sorts after one without.
function compareLocal(a: (number | string)[] | null, b: (number | string)[] | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? -1 : 1;
    if (typeof x !== typeof y) return typeof x === 'number' ? 1 : -1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
