import type { CheckTarget } from '../../model/health.ts';
import { installedPackageOf, resolveCommand } from './installed-package.ts';
import { launchWords, programName, type Word } from './launch-argv.ts';
import type { Ecosystem } from './osv-types.ts';
import { parseSpec, type VersionKind } from './package-spec.ts';

/**
 * Which package a stdio server runs, read from its launch command (docs/security.md#which-package-a-server-runs): the
 * fetch-and-run launchers (npx, npm exec, pnpm dlx, yarn dlx, bunx, uvx, pipx run), `python -m`,
 * and installed scripts or bins (their package.json gives the exact version). Remote servers have
 * no launch command: null, and serverInfo is the caller's weak fallback (supply-check.ts).
 */
export interface PackageRef {
  ecosystem: Ecosystem;
  name: string;
  version: string | null;
  /** The spec as written (`mcp-remote@0.1.15`, `mcp-server-git==2026.1.0`) or the package.json path. */
  spec: string;
  pinned: boolean;
  source: 'command' | 'installed' | 'serverInfo';
  location: string;
  /** The fetch-and-run launcher (`npx`, `uvx`...), or null when the package is already installed. */
  launcher: string | null;
  versionKind: VersionKind;
}

export interface LaunchOptions {
  /** Where relative script paths and ./node_modules/.bin resolve: the directory Spyglass starts servers in. */
  cwd?: string;
  /** PATH used to resolve a bare bin command. */
  path?: string | undefined;
}

// Flags that take the next word as their value, per launcher; `--flag=value` never does.
const NPX_VALUE = new Set([
  '-p',
  '--package',
  '--registry',
  '--cache',
  '--userconfig',
  '--prefix',
  '-w',
  '--workspace',
  '-c',
  '--call',
  '--node-options',
  '--shell',
  '--script-shell',
]);
const UVX_VALUE = new Set([
  '--from',
  '--with',
  '--with-editable',
  '--with-requirements',
  '-p',
  '--python',
  '--index',
  '--index-url',
  '--extra-index-url',
  '--default-index',
  '-c',
  '--constraints',
  '--directory',
]);
const PIPX_VALUE = new Set(['--spec', '--python', '--index-url', '--pip-args']);
const NODE_VALUE = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--env-file',
  '--conditions',
  '-C',
]);

export function launchPackage(target: CheckTarget, opts: LaunchOptions = {}): PackageRef | null {
  if (target.transport !== 'stdio') return null;
  const words = launchWords(target.command, target.args);
  const program = programName(words[0]);
  const rest = words.slice(1);
  const second = programName(rest[0]);
  if (program === 'npx' || program === 'bunx')
    return fetched('npm', program, rest, NPX_VALUE, ['-p', '--package']);
  if ((program === 'npm' || program === 'bun') && (second === 'exec' || second === 'x'))
    return fetched('npm', `${program} ${second}`, rest.slice(1), NPX_VALUE, ['-p', '--package']);
  if ((program === 'pnpm' || program === 'yarn') && second === 'dlx')
    return fetched('npm', `${program} dlx`, rest.slice(1), NPX_VALUE, ['-p', '--package']);
  if (program === 'uvx') return fetched('PyPI', 'uvx', rest, UVX_VALUE, ['--from']);
  if (program === 'uv' && second === 'tool' && programName(rest[1]) === 'run')
    return fetched('PyPI', 'uv tool run', rest.slice(2), UVX_VALUE, ['--from']);
  if (program === 'pipx' && second === 'run')
    return fetched('PyPI', 'pipx run', rest.slice(1), PIPX_VALUE, ['--spec']);
  if (/^(python[\d.]*|py)$/.test(program)) return pythonModule(rest);
  const cwd = opts.cwd ?? process.cwd();
  if (program === 'node' || program === 'nodejs') {
    const script = positionals(rest, NODE_VALUE)[0];
    return script ? installed(script.text, script.location, cwd) : null;
  }
  const first = words[0];
  const bin = first
    ? resolveCommand(first.text, cwd, opts.path ?? target.env?.PATH ?? process.env.PATH)
    : null;
  return bin && first ? installed(bin, first.location, cwd) : null;
}

function fetched(
  ecosystem: Ecosystem,
  launcher: string,
  words: Word[],
  valueFlags: Set<string>,
  packageFlags: string[],
): PackageRef | null {
  const flagged = flagValue(words, valueFlags, packageFlags);
  const spec = flagged ?? positionals(words, valueFlags)[0];
  if (!spec) return null;
  const parsed = parseSpec(ecosystem, spec.text);
  if (!parsed) return null;
  const { name, version, kind } = parsed;
  return {
    ecosystem,
    name,
    version,
    spec: spec.text,
    pinned: kind === 'exact',
    source: 'command',
    location: spec.location,
    launcher,
    versionKind: kind,
  };
}

// `python -m mcp_server_git`: an installed module; its PyPI name is the top-level module with `_` as `-`.
function pythonModule(words: Word[]): PackageRef | null {
  const i = words.findIndex((w) => w.text === '-m');
  const mod = i >= 0 ? words[i + 1] : undefined;
  if (!mod) return null;
  const top = mod.text.split('.')[0] ?? '';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(top)) return null;
  return {
    ecosystem: 'PyPI',
    name: top.replace(/_/g, '-'),
    version: null,
    spec: mod.text,
    pinned: false,
    source: 'command',
    location: mod.location,
    launcher: null,
    versionKind: 'none',
  };
}

function installed(file: string, location: string, cwd: string): PackageRef | null {
  const pkg = installedPackageOf(file, cwd);
  if (!pkg) return null;
  return {
    ecosystem: 'npm',
    name: pkg.name,
    version: pkg.version,
    spec: pkg.packageJson,
    pinned: true,
    source: 'installed',
    location,
    launcher: null,
    versionKind: 'exact',
  };
}

// The value of a package flag (`-p spec`, `--package=spec`, `--from spec`) among the launcher's own
// flags, which all come before the command.
function flagValue(words: Word[], valueFlags: Set<string>, wanted: string[]): Word | null {
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as Word;
    if (w.text === '--' || !w.text.startsWith('-')) return null;
    const eq = w.text.indexOf('=');
    if (eq > 0 && wanted.includes(w.text.slice(0, eq)))
      return { text: w.text.slice(eq + 1), location: w.location };
    if (wanted.includes(w.text)) return words[i + 1] ?? null;
    if (valueFlags.has(w.text)) i += 1;
  }
  return null;
}

/** The first word that is neither a flag nor a flag's value (the command), as a list of at most one. */
function positionals(words: Word[], valueFlags: Set<string>): Word[] {
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as Word;
    if (w.text === '--') return words.slice(i + 1, i + 2);
    if (w.text.startsWith('-')) {
      if (valueFlags.has(w.text)) i += 1;
      continue;
    }
    return [w];
  }
  return [];
}
