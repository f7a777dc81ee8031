import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { STAMP, stampBuild } from '../../scripts/build-stamp.ts';

const ROOT = join(import.meta.dirname, '../..');
const CONFIGS = [
  'tsconfig.json',
  'tsconfig.build.json',
  'sdk/tsconfig.json',
  'package.json',
  'sdk/package.json',
  'scripts/bundle.ts',
];
/** The bundle bin/spyglass.js runs (scripts/bundle.ts). */
const BUNDLE = join(ROOT, 'dist/bundle/cli.js');

function newestMtime(dir: string, ext = /\.ts$/): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && ext.test(entry.name))
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Compiles src/ into dist/ and sdk/src/ into sdk/dist/ and bundles the CLI and server into
 * dist/bundle/ (`npm run build`: the server, the CLI that tests spawn through bin/spyglass.js, and
 * the SDK package) when no build is there or a source or build config is newer than
 * the last one, so tests never run stale JavaScript. tsc is incremental: a rebuild after a small
 * change recompiles only what it touches. Returns whether it built.
 */
export async function buildIfStale(): Promise<boolean> {
  const sources = Math.max(
    newestMtime(join(ROOT, 'src')),
    newestMtime(join(ROOT, 'sdk/src')),
    ...CONFIGS.map((f) => statSync(join(ROOT, f)).mtimeMs),
  );
  if (existsSync(STAMP) && existsSync(BUNDLE) && statSync(STAMP).mtimeMs >= sources) return false;
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  for (const project of ['tsconfig.build.json', 'sdk/tsconfig.json']) {
    await promisify(execFile)(process.execPath, [tsc, '-p', join(ROOT, project)], {
      cwd: ROOT,
      timeout: 300_000,
    });
  }
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/bundle.ts'], {
    cwd: ROOT,
    timeout: 300_000,
  });
  stampBuild();
  return true;
}

/** The dashboard's build (its index.html is the stamp). */
const UI_INDEX = join(ROOT, 'dist/ui/index.html');

/**
 * Builds the dashboard (ui/ into dist/ui, `npm run build:ui`) when it is missing or a UI source,
 * its config or package.json is newer, so the browser tests never drive a stale bundle.
 */
export async function buildUiIfStale(): Promise<boolean> {
  const sources = Math.max(
    newestMtime(join(ROOT, 'ui'), /\.(ts|tsx|css|html|svg|json)$/),
    statSync(join(ROOT, 'package.json')).mtimeMs,
  );
  if (existsSync(UI_INDEX) && statSync(UI_INDEX).mtimeMs >= sources) return false;
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  await promisify(execFile)(process.execPath, [vite, 'build', '--config', 'ui/vite.config.ts'], {
    cwd: ROOT,
    timeout: 300_000,
  });
  return true;
}

const FIXTURES = join(ROOT, 'test/fixtures/mcp');

/**
 * Bundles the MCP fixtures that tests run as processes of their own (test/fixtures/mcp/*.ts) to
 * JavaScript once per run, each with its packages in one file (esbuild, as scripts/bundle.ts does
 * for the CLI), so each start is plain `node file.js`: no tsx loader (its esbuild service cost every
 * fixture start as much again), and the MCP SDK, zod and ajv read from one file instead of about
 * two hundred modules resolved one by one (0.27 s of CPU per stdio fixture start before, 0.14 s
 * after; the security and health tests start dozens). Types are checked by `npx tsc --noEmit`.
 * The output lives under node_modules/.cache, beside the packages. Returns the directory
 * (test/global-setup.ts provides it; tests name a script with fixtureArgs in
 * test/helpers/fixture-scripts.ts), and removes it when the build fails. Asynchronous, so that the
 * global setup runs it beside the other steps (as buildSync it held the setup 1.8-4.2 s at load
 * 7-15 before anything else started).
 */
export async function compileFixtureScripts(): Promise<string> {
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, 'spyglass-fixtures-'));
  try {
    await build({
      absWorkingDir: ROOT,
      entryPoints: readdirSync(FIXTURES)
        .filter((name) => name.endsWith('.ts'))
        .map((name) => join(FIXTURES, name)),
      outdir: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // CommonJS dependencies bundled into ES modules still call `require` for node's modules.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'warning',
    });
  } catch (err) {
    rmSync(out, { recursive: true, force: true });
    throw err;
  }
  // The fixtures are ES modules whatever the nearest package.json says.
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  return out;
}
