import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';

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
    return WebAssembly.compile(await readOutsideMalloc(join(dirname(entry), 'pglite.wasm')));
  })().catch((err: unknown) => {
    compiled = undefined;
    throw err;
  });
  return compiled;
}

/**
 * The file's bytes in memory that is not malloc's: a WebAssembly.Memory's buffer, which V8 maps and
 * unmaps itself. A 9 MB Buffer (readFile's) is a chunk glibc's malloc maps on its own, and freeing
 * one that large (after the compile, which keeps its own copy) raises malloc's thresholds for the
 * rest of the process: every allocation under 9 MB was then served from the heaps of the threads
 * that made it (the database thread, V8's and libuv's), and each heap kept up to 18 MB of freed
 * memory instead of giving it back, about 45 MB of the server's idle RSS and more under load
 * (docs/benchmarks.md#memory-at-the-peak-on-pglite-second-round-2026-11-27-1115-1300-utc).
 */
async function readOutsideMalloc(path: string): Promise<Uint8Array<ArrayBuffer>> {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    const memory = new WebAssembly.Memory({ initial: Math.ceil(size / WASM_PAGE_BYTES) });
    const bytes = new Uint8Array(memory.buffer as ArrayBuffer, 0, size);
    for (let at = 0; at < size;) {
      const { bytesRead } = await file.read(bytes, at, size - at, at);
      if (bytesRead === 0) throw new Error(`${path}: ended at ${at} of ${size} bytes`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await file.close();
  }
}

const WASM_PAGE_BYTES = 65536;

/**
 * V8 runs WebAssembly first as baseline (Liftoff) code and compiles a function again with its
 * optimising compiler (TurboFan) once it has run a budget's worth of code. A PostgreSQL backend's
 * start and its first queries run a great many functions a little each, and with V8's budget
 * (1,800,000) their tier-up cost about half a second of CPU beside the open, on a machine with two
 * cores, while the same few functions a steady load runs are hot enough under a hundred times that
 * budget: an open and its first queries then took half the CPU, and a long insert-and-query load
 * no more (docs/benchmarks.md#start-up-fourth-round-2026-11-27-0800-1000-utc). V8 reads the
 * budget when an instance is made, so this is set before PGlite's thread starts; a value given on
 * node's command line or in NODE_OPTIONS wins.
 */
export function deferWasmTierUp(): void {
  if (!flagGiven(/wasm[-_]tiering[-_]budget/))
    setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

/** Whether node's command line or NODE_OPTIONS names the V8 flag: the operator's value wins. */
function flagGiven(name: RegExp): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => name.test(a));
}

/**
 * Bounds the growth of V8's old generation for a server on the embedded database: a full
 * collection once the old generation reaches 1.5× what the last one left live, where V8's own
 * factor on a machine with gigabytes to spare lets it reach 2-4×. Under the full ingest load the
 * main thread promotes every in-flight request's spans (they wait for their group's commit
 * through several scavenges), and its heap climbed from ~70 to 120-145 MB committed between full
 * collections, with the requests' ArrayBuffers held until the same collection: the largest part
 * of the PGlite peak. With this the main heap stays at ~85 MB
 * (docs/benchmarks.md#memory-at-the-peak-on-pglite-third-round-2026-11-27-1445-1610-utc). On
 * PGlite the database's thread, not the main thread, sets the pace, which is why this is not done
 * for PostgreSQL (there it cost the real exporter traffic a fifth to a third of its throughput:
 * docs/benchmarks.md#memory-at-the-peak-on-pglite-2026-11-27-0645-0650-utc). V8 reads the flag at
 * each full collection, so setting it at run time takes effect at the next one; a value given on
 * node's command line or in NODE_OPTIONS wins. Process-wide: the database's thread gets it too
 * (its heap is ~10 MB live).
 */
export function boundHeapGrowth(): void {
  if (!flagGiven(/heap[-_]growing[-_]percent/))
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const HEAP_GROWING_PERCENT = 50;

const WASM_TIERING_BUDGET = 180_000_000;
