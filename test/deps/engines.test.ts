import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * `npm install` on the oldest Node we claim (package.json engines) must not print EBADENGINE:
 * every package the lockfile installs for production accepts that Node, and every package,
 * development tools included, accepts the Node running the suite.
 */
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(
  readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'),
) as {
  packages: Record<
    string,
    { version?: string; dev?: boolean; optional?: boolean; engines?: { node?: string } | string[] }
  >;
};

function refusing(
  node: string,
  include: (p: { dev?: boolean; optional?: boolean }) => boolean,
): string[] {
  return Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && include(p))
    .flatMap(([path, p]) => {
      const wanted = Array.isArray(p.engines) ? undefined : p.engines?.node;
      return wanted && !semver.satisfies(node, wanted)
        ? [`${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${wanted}`]
        : [];
    });
}

describe('engines', () => {
  it('every production dependency runs on the oldest Node package.json promises', () => {
    const oldest = semver.minVersion(pkg.engines.node)?.version ?? '';
    expect(oldest).toBe('20.19.0');
    expect(refusing(oldest, (p) => !p.dev)).toEqual([]);
  });

  it('every installed package, dev tools included, accepts the Node running this suite', () => {
    expect(refusing(process.versions.node, (p) => !p.optional)).toEqual([]);
  });
});
