import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';

/**
 * The exact npm package behind a script or bin that is already installed (docs/security.md#which-package-a-server-runs: the
 * most accurate mapping, and it works offline): follow the symlink, then walk up to the nearest
 * package.json that names a package. Only files under a node_modules folder count, so a project's
 * own scripts are not mistaken for a published package.
 */
export interface InstalledPackage {
  name: string;
  version: string;
  packageJson: string;
}

export function installedPackageOf(file: string, cwd: string): InstalledPackage | null {
  let real: string;
  try {
    real = realpathSync(resolve(cwd, file));
  } catch {
    return null;
  }
  if (!real.includes(`${sep}node_modules${sep}`)) return null;
  for (let dir = dirname(real); dir !== dirname(dir); dir = dirname(dir)) {
    const found = readPackageJson(join(dir, 'package.json'));
    // dist/ folders often hold a package.json with only {"type":"module"}: keep walking past those.
    if (found) return found;
    if (dir.endsWith(`${sep}node_modules`)) return null;
  }
  return null;
}

/** Where a bare command resolves: ./node_modules/.bin first (npm scripts do the same), then PATH. */
export function resolveCommand(
  command: string,
  cwd: string,
  path: string | undefined,
): string | null {
  if (command.includes('/') || command.includes('\\') || isAbsolute(command))
    return resolve(cwd, command);
  const dirs = [
    join(cwd, 'node_modules', '.bin'),
    ...(path ?? '').split(delimiter).filter((d) => d !== ''),
  ];
  for (const dir of dirs) {
    const candidate = join(dir, command);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function readPackageJson(file: string): InstalledPackage | null {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
  const { name, version } = (doc ?? {}) as { name?: unknown; version?: unknown };
  return typeof name === 'string' && typeof version === 'string'
    ? { name, version, packageJson: file }
    : null;
}
