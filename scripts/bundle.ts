// Bundles the CLI and the server into dist/bundle/, what bin/spyglass.js runs: run by
// `npm run build` (and so by `npm install`), after tsc. A start of `spyglass serve` loaded about
// 1,900 module files (ours from dist/ and their dependencies') one by one; from the bundle it
// loads about 250 (docs/benchmarks.md#start-up-bundled-2026-11-27-0305-0330-utc). Code splitting
// keeps every dynamic import lazy: a CLI command's module, the server (src/main.ts) and the
// GraphQL server load only when used, each as its own chunk.
//
// Every chunk is in dist/bundle/ itself: the worker threads' entries (pglite-worker.js,
// json-worker.js) sit beside the code that starts them, as in tsc's output, and files of the
// package (drizzle/, data/, dist/ui, dist/pglite-template) are found from its root
// (src/package-root.ts).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist/bundle');

/**
 * Dependencies left to node_modules: each reads files beside its own module at run time
 * (`__dirname`, which a bundled ES module does not have) or ships assets.
 */
const EXTERNAL = [
  // its wasm and data files, and the template's check of the installed version
  '@electric-sql/pglite',
  // .proto files of channelz and ORCA
  '@grpc/grpc-js',
  // transports and thread-stream start worker files by path
  'pino',
  // reads its package.json for the client's name
  'ioredis',
];

rmSync(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: {
    cli: 'src/cli/main.ts',
    'pglite-worker': 'src/store/pglite-worker.ts',
    'json-worker': 'src/receivers/json-worker.ts',
  },
  outdir: OUT,
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Maps (without the sources' text) so CPU profiles of the bundle read as src/ and packages
  // (bench/profile-top.ts), and `node --enable-source-maps` shows source lines in stack traces.
  sourcemap: 'linked',
  sourcesContent: false,
  // Names as in the sources (an error's or a class's `.name`), not esbuild's renames.
  keepNames: true,
  // CommonJS dependencies bundled into ES modules still call `require` for node's modules.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
// keepNames' helper redefines `name` on every function it is given, and it is given every nested
// function each time its enclosing function runs: Fastify's hook runners alone made three
// `Object.defineProperty` calls a request per hook kind, each a trip into the runtime that also
// turns the closure's own map into a fresh one. A function whose name is already the one esbuild
// would give it (almost every one: esbuild renames only on a clash) is left as it is; the names
// stay exactly what keepNames makes them (docs/benchmarks.md, batch 25 on PostgreSQL).
const NAME_HELPER =
  'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
const CHEAP_NAME_HELPER =
  'var __name = (target, value) => target.name === value ? target : __defProp(target, "name", { value, configurable: true });';
const helperChunks = readdirSync(OUT).filter(
  (f) => f.endsWith('.js') && readFileSync(join(OUT, f), 'utf8').includes(NAME_HELPER),
);
if (helperChunks.length === 0) {
  process.stderr.write(`bundle: esbuild's keepNames helper was not found (${NAME_HELPER})\n`);
  process.exit(1);
}
for (const f of helperChunks) {
  const file = join(OUT, f);
  writeFileSync(file, readFileSync(file, 'utf8').replace(NAME_HELPER, CHEAP_NAME_HELPER));
}
// A chunk that is only `export default require_x()` is a CommonJS package reached by
// `import('package')`: its named exports are missing in the bundle (node's own loader has them,
// so the code works from src/). Import it through a module of ours instead (docs/architecture.md).
const cjsChunks = readdirSync(OUT).filter(
  (f) =>
    f.endsWith('.js') &&
    /^export default require_\w+\(\);$/m.test(readFileSync(join(OUT, f), 'utf8')),
);
if (cjsChunks.length > 0) {
  process.stderr.write(
    `bundle: a CommonJS package is imported dynamically (no named exports in the bundle): ${cjsChunks.join(', ')}\n`,
  );
  process.exit(1);
}
process.stdout.write(`wrote ${OUT}\n`);
