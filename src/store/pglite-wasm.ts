import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * PGlite's WebAssembly module (9 MB), compiled once per process and handed to every database thread
 * (pglite-thread.ts). A thread that compiles its own spends about 0.6 s of CPU compiling it and
 * optimising its hot functions again; threads given one module share its machine code, so a second
 * thread opens in half the CPU. A server opens one thread; the tests open hundreds per process.
 * The thread `spyglass serve` starts ahead of its config calls this itself (pglite-worker.ts), so
 * the compile does not wait on the main thread's event loop.
 */
let compiled: Promise<WebAssembly.Module> | undefined;

export function pgliteWasm(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    // PGlite loads it from beside its own entry point, as this does.
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    return WebAssembly.compile(await readFile(join(dirname(entry), 'pglite.wasm')));
  })().catch((err: unknown) => {
    compiled = undefined;
    throw err;
  });
  return compiled;
}
