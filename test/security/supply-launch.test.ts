import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchPackage } from '../../src/security/supply/index.ts';
import { remote, stdio } from '../fixtures/osv/context.ts';

const pkg = (command: string, ...args: string[]) => launchPackage(stdio(command, args));
const short = (command: string, ...args: string[]) => {
  const r = pkg(command, ...args);
  return (
    r && {
      ecosystem: r.ecosystem,
      name: r.name,
      version: r.version,
      pinned: r.pinned,
      kind: r.versionKind,
      launcher: r.launcher,
      location: r.location,
    }
  );
};

describe('launchPackage: fetch-and-run launchers', () => {
  it('npx: flags skipped, the first positional is the package, version split at the last @', () => {
    expect(short('npx', '-y', 'mcp-remote@0.1.15', 'https://example.test/mcp')).toEqual({
      ecosystem: 'npm',
      name: 'mcp-remote',
      version: '0.1.15',
      pinned: true,
      kind: 'exact',
      launcher: 'npx',
      location: 'args[1]',
    });
    expect(
      short('npx', '--yes', '@modelcontextprotocol/server-filesystem@2025.3.28', '/tmp'),
    ).toMatchObject({
      name: '@modelcontextprotocol/server-filesystem',
      version: '2025.3.28',
      pinned: true,
    });
    expect(short('/usr/local/bin/npx.cmd', '@scope/pkg')).toMatchObject({
      name: '@scope/pkg',
      version: null,
      pinned: false,
      kind: 'none',
    });
    expect(short('npx', '--registry', 'https://r.test', 'pkg@1.2.3')).toMatchObject({
      name: 'pkg',
      version: '1.2.3',
      location: 'args[2]',
    });
  });

  it('--package and -p name the package; the positional is then only the bin', () => {
    expect(
      short('npx', '--package=@modelcontextprotocol/inspector@0.14.0', 'mcp-inspector'),
    ).toMatchObject({
      name: '@modelcontextprotocol/inspector',
      version: '0.14.0',
      location: 'args[0]',
    });
    expect(short('npx', '-y', '-p', 'mcp-remote@0.1.16', 'mcp-remote')).toMatchObject({
      name: 'mcp-remote',
      version: '0.1.16',
      location: 'args[2]',
    });
  });

  it('latest, other tags and ranges are unpinned; a word that is neither is an invalid version', () => {
    expect(short('npx', '-y', 'mcp-remote@latest')).toMatchObject({
      version: 'latest',
      pinned: false,
      kind: 'tag',
    });
    expect(short('npx', 'mcp-remote@^0.1.0')).toMatchObject({
      version: '^0.1.0',
      pinned: false,
      kind: 'range',
    });
    expect(short('npx', 'mcp-remote@0')).toMatchObject({ pinned: false, kind: 'range' });
    expect(short('npx', 'mcp-remote@banana')).toMatchObject({
      version: 'banana',
      pinned: false,
      kind: 'invalid',
    });
  });

  it('npm exec, pnpm dlx, yarn dlx, bunx and bun x are read like npx', () => {
    expect(short('npm', 'exec', '--yes', '--', 'mcp-remote@0.1.15')).toMatchObject({
      name: 'mcp-remote',
      launcher: 'npm exec',
    });
    expect(short('pnpm', 'dlx', '@modelcontextprotocol/server-memory@2026.8.31')).toMatchObject({
      name: '@modelcontextprotocol/server-memory',
      version: '2026.8.31',
      launcher: 'pnpm dlx',
    });
    expect(short('yarn', 'dlx', '-p', 'mcp-remote@0.1.14', 'mcp-remote')).toMatchObject({
      version: '0.1.14',
      launcher: 'yarn dlx',
    });
    expect(short('bunx', 'mcp-remote@0.1.15')).toMatchObject({ launcher: 'bunx' });
    expect(short('bun', 'x', 'mcp-remote')).toMatchObject({ launcher: 'bun x', pinned: false });
  });

  it('uvx, uv tool run and pipx run map to PyPI specs (==, @, ranges)', () => {
    expect(
      short('uvx', '--from', 'mcp-server-git==2026.1.0', 'mcp-server-git', '--repository', '.'),
    ).toEqual({
      ecosystem: 'PyPI',
      name: 'mcp-server-git',
      version: '2026.1.0',
      pinned: true,
      kind: 'exact',
      launcher: 'uvx',
      location: 'args[1]',
    });
    expect(short('uvx', 'mcp-server-git@2026.1.14')).toMatchObject({
      version: '2026.1.14',
      pinned: true,
    });
    expect(short('uvx', 'mcp-server-git')).toMatchObject({
      version: null,
      pinned: false,
      kind: 'none',
    });
    expect(short('uvx', '--from', 'mcp-server-git>=2026.1', 'mcp-server-git')).toMatchObject({
      kind: 'range',
      pinned: false,
    });
    expect(
      short('uv', 'tool', 'run', '--python', '3.12', 'mcp-server-fetch==2025.4.7'),
    ).toMatchObject({ name: 'mcp-server-fetch', version: '2025.4.7', launcher: 'uv tool run' });
    expect(short('pipx', 'run', '--spec', 'mcp[cli]==1.22.0', 'mcp')).toMatchObject({
      name: 'mcp',
      version: '1.22.0',
      launcher: 'pipx run',
    });
  });

  it('python -m names an installed module: PyPI name, version unknown, not fetched', () => {
    expect(short('python3', '-m', 'mcp_server_git', '--repository', '.')).toMatchObject({
      ecosystem: 'PyPI',
      name: 'mcp-server-git',
      version: null,
      launcher: null,
    });
  });

  it('wrappers are peeled: a command string with no args, env K=V, sh -c', () => {
    expect(short('npx -y mcp-remote@0.1.15 https://x.test')).toMatchObject({
      name: 'mcp-remote',
      version: '0.1.15',
      location: 'command',
    });
    expect(short('env', 'DEBUG=1', 'npx', 'mcp-remote@0.1.15')).toMatchObject({
      name: 'mcp-remote',
      location: 'args[2]',
    });
    expect(
      short('bash', '-c', 'npx -y "mcp-remote@0.1.15" https://x.test | tee log'),
    ).toMatchObject({ name: 'mcp-remote', version: '0.1.15', location: 'args[1]' });
  });

  it('remote servers and launches that name no registry package map to nothing', () => {
    expect(launchPackage(remote('https://mcp.example.test/mcp'))).toBeNull();
    expect(pkg('npx', 'github:someone/server')).toBeNull();
    expect(pkg('npx', './local-server')).toBeNull();
    expect(
      pkg('uvx', '--from', 'git+https://example.test/mcp-server-x', 'mcp-server-x'),
    ).toBeNull();
    expect(
      pkg('uvx', '--from', 'mcp-server-x @ https://example.test/x.whl', 'mcp-server-x'),
    ).toBeNull();
    expect(pkg('docker', 'run', '-i', 'mcp/git:latest')).toBeNull();
    expect(pkg('npx')).toBeNull();
  });
});

describe('launchPackage: installed packages', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spyglass-launch-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('node node_modules/<pkg>/… reads the installed package.json (the real server-filesystem devDependency)', () => {
    const r = launchPackage(
      stdio('node', ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '/tmp']),
      { cwd: process.cwd() },
    );
    expect(r).toMatchObject({
      ecosystem: 'npm',
      name: '@modelcontextprotocol/server-filesystem',
      version: '2026.8.31',
      pinned: true,
      source: 'installed',
      location: 'args[0]',
      launcher: null,
    });
    expect(r?.spec).toMatch(
      /node_modules\/@modelcontextprotocol\/server-filesystem\/package\.json$/,
    );
  });

  it('a bin command resolves through node_modules/.bin or PATH to its package', () => {
    expect(
      launchPackage(stdio('mcp-server-memory'), { cwd: process.cwd(), path: '' }),
    ).toMatchObject({
      name: '@modelcontextprotocol/server-memory',
      version: '2026.8.31',
      source: 'installed',
      location: 'command',
    });
    expect(
      launchPackage(stdio('mcp-server-memory'), {
        cwd: dir,
        path: join(process.cwd(), 'node_modules', '.bin'),
      }),
    ).toMatchObject({ name: '@modelcontextprotocol/server-memory' });
    expect(launchPackage(stdio('no-such-bin-here'), { cwd: dir, path: '' })).toBeNull();
  });

  it('walks past a dist/ package.json without a name, and ignores scripts outside node_modules', async () => {
    const root = join(dir, 'node_modules', 'acme-mcp');
    await mkdir(join(root, 'dist'), { recursive: true });
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({ name: 'acme-mcp', version: '1.4.0' }),
    );
    await writeFile(join(root, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(root, 'dist', 'cli.js'), '');
    await mkdir(join(dir, 'bin'));
    await symlink(join(root, 'dist', 'cli.js'), join(dir, 'bin', 'acme'));
    expect(launchPackage(stdio(join(dir, 'bin', 'acme')), { cwd: dir })).toMatchObject({
      name: 'acme-mcp',
      version: '1.4.0',
    });
    expect(
      launchPackage(stdio('node', ['--enable-source-maps', 'node_modules/acme-mcp/dist/cli.js']), {
        cwd: dir,
      }),
    ).toMatchObject({ name: 'acme-mcp', location: 'args[1]' });
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'my-project', version: '0.0.1' }),
    );
    await writeFile(join(dir, 'server.js'), '');
    expect(launchPackage(stdio('node', ['server.js']), { cwd: dir })).toBeNull();
  });
});
