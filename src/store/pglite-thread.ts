import { existsSync, statSync } from 'node:fs';
import { Duplex } from 'node:stream';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { pgliteWasm } from './pglite-wasm.ts';

/** Messages to the database thread (src/store/pglite-worker.ts). */
export type ToThread =
  | { type: 'open'; dir: string; conf: string[]; wasm?: WebAssembly.Module }
  | { type: 'data'; conn: number; bytes: ArrayBuffer }
  | { type: 'end'; conn: number }
  | { type: 'copy'; id: number; sql: string; rows: ArrayBuffer }
  | { type: 'close' };
/** The thread's workerData: `compileWasm` for a thread that compiles PGlite's module itself. */
export interface ThreadData {
  compileWasm?: boolean;
}
/** Messages from it. */
export type FromThread =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'data'; conn: number; bytes: ArrayBuffer }
  | { type: 'ended'; conn: number }
  | { type: 'copied'; id: number; error: string | null }
  | { type: 'closed' };

/**
 * The embedded database (PGlite) on a thread of its own, so its work runs beside the server's
 * event loop instead of on it (docs/architecture.md#the-embedded-database). The main thread talks
 * to it with postgres.js, as to PostgreSQL: `socket()` is a connection for postgres.js's `socket`
 * option, carrying the wire protocol over the thread's message port.
 */
export interface PgliteThread {
  socket(): Duplex;
  /**
   * Runs `COPY … FROM '/dev/blob'` (`sql`) with `rows` as the file, inside the transaction open on
   * the thread: the caller's, which sends this after its BEGIN was answered (postgres.js cannot
   * speak COPY's sub-protocol to PGlite). Rejects with the database's message when the COPY fails
   * (the transaction is then failed, and the caller's next statement and COMMIT roll it back), or
   * when no transaction is open. `rows` is moved to the thread when it is the whole of its
   * ArrayBuffer (the caller's buffer is then detached: empty), else its bytes are copied.
   */
  copyIn(sql: string, rows: Uint8Array): Promise<void>;
  /** Closes PGlite (after the connections have ended) and ends the thread. */
  close(): Promise<void>;
}

// Built, the thread runs pglite-worker.js. From the sources (tsx, vitest) it runs the build's
// pglite-worker.js too when that is at least as new as the sources it comes from (the test setup
// rebuilds before each run: test/global-setup.ts): registering tsx inside a thread costs a quarter
// of a second of CPU and about a second of wall time per start. Otherwise it runs pglite-worker.ts
// through tsx's loader, registered inside the thread (Node 20 does not apply `--import tsx` there).
const SOURCE = import.meta.url.endsWith('.ts');
const BUILT = SOURCE
  ? new URL('../../dist/store/', import.meta.url)
  : new URL('./', import.meta.url);

function builtWorker(): URL | null {
  const fresh = (name: string) => {
    const js = new URL(`${name}.js`, BUILT);
    return (
      existsSync(js) &&
      statSync(js).mtimeMs >= statSync(new URL(`${name}.ts`, import.meta.url)).mtimeMs
    );
  };
  if (SOURCE && !['pglite-worker', 'pg-wire', 'pglite-thread', 'pglite-wasm'].every(fresh))
    return null;
  return new URL('pglite-worker.js', BUILT);
}

const CLOSE_WAIT_MS = 10_000;

/**
 * A thread started before the data directory was known (prewarmPgliteThread), loading PGlite's
 * code while it waits for its `open` message; startPgliteThread takes it.
 */
let warm: Worker | undefined;

/**
 * Starts a database thread ahead of startPgliteThread, for `spyglass serve` before it reads its
 * config: the thread compiles PGlite's wasm module itself and loads PGlite's code while the main
 * thread loads the server's modules, instead of after the config
 * (docs/benchmarks.md#start-up-third-round-2026-11-27-0600-0740-utc). Does not keep the process
 * alive; dropPrewarmedThread ends it when the config selects PostgreSQL.
 */
export function prewarmPgliteThread(): void {
  if (warm) return;
  const w = spawnWorker({ compileWasm: true });
  w.unref();
  w.on('error', () => {}); // reported by a thread started instead (startPgliteThread)
  w.once('exit', () => {
    if (warm === w) warm = undefined;
  });
  warm = w;
}

/** Ends the thread prewarmPgliteThread started, when nothing took it (PostgreSQL configured). */
export function dropPrewarmedThread(): void {
  void warm?.terminate();
  warm = undefined;
}

/**
 * The database thread's young generation. With V8's default the thread's heap reached 28 MB
 * committed under the full ingest load, of which about a dozen were live: what the thread
 * allocates in JavaScript is each message's small objects (the rows and answers are ArrayBuffers,
 * outside this heap). 8 MB held it at 14-15 MB
 * (docs/benchmarks.md#memory-at-the-peak-on-pglite-second-round-2026-11-27-1115-1300-utc).
 */
const THREAD_YOUNG_GENERATION_MB = 8;

function spawnWorker(workerData: ThreadData = {}): Worker {
  const options = {
    execArgv: threadExecArgv(process.execArgv),
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
  };
  const built = builtWorker();
  if (built) return newWorker(built, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const ts = new URL('./pglite-worker.ts', import.meta.url).href;
  const entry = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(ts)}); })`;
  return newWorker(entry, { ...options, eval: true });
}

export async function startPgliteThread(dir: string, conf: string[]): Promise<PgliteThread> {
  // A prewarmed thread compiles its own module; any other is given the process's one.
  const prewarmed = warm !== undefined;
  const worker = warm ?? spawnWorker();
  warm = undefined;
  worker.ref();

  const sockets = new Map<number, ThreadSocket>();
  let nextConn = 1;
  const copies = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  let nextCopy = 1;
  let failure: Error | null = null;
  let onClosed: (() => void) | null = null;
  const fail = (err: Error) => {
    failure = err;
    for (const s of sockets.values()) s.destroy(err);
    sockets.clear();
    for (const c of copies.values()) c.reject(err);
    copies.clear();
  };

  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: FromThread) => {
      if (m.type === 'ready') resolve();
      else if (m.type === 'failed') reject(new Error(m.message));
      else if (m.type === 'data') sockets.get(m.conn)?.push(Buffer.from(m.bytes));
      else if (m.type === 'ended') {
        sockets.get(m.conn)?.push(null);
        sockets.delete(m.conn);
      } else if (m.type === 'copied') {
        const c = copies.get(m.id);
        copies.delete(m.id);
        if (m.error === null) c?.resolve();
        else c?.reject(new Error(m.error));
      } else if (m.type === 'closed') onClosed?.();
    });
    // The thread loads PGlite's code meanwhile, then opens the directory with the compiled module.
    if (prewarmed) worker.postMessage({ type: 'open', dir, conf });
    else pgliteWasm().then((wasm) => worker.postMessage({ type: 'open', dir, conf, wasm }), reject);
    worker.on('error', (err) => {
      reject(err);
      fail(err);
    });
    worker.on('exit', (code) => {
      const err = new Error(`the embedded database's thread exited (code ${code})`);
      reject(err);
      fail(err);
      onClosed?.();
    });
  });

  const post = (m: ToThread, transfer: ArrayBuffer[] = []) => worker.postMessage(m, transfer);
  return {
    socket: () => {
      const s = new ThreadSocket(nextConn++, post);
      if (failure) queueMicrotask(() => s.destroy(failure!));
      else sockets.set(s.conn, s);
      return s;
    },
    copyIn: (sql, rows) =>
      new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure);
        const id = nextCopy++;
        copies.set(id, { resolve, reject });
        // Moved to the thread as it is when it is a whole buffer; a view (a Buffer's slice(), a
        // pooled Buffer) as a copy of exactly its bytes.
        const whole = rows.byteOffset === 0 && rows.byteLength === rows.buffer.byteLength;
        const bytes = (whole ? rows.buffer : new Uint8Array(rows).buffer) as ArrayBuffer;
        post({ type: 'copy', id, sql, rows: bytes }, [bytes]);
      }),
    close: async () => {
      if (failure) return;
      // PGlite closes once every connection has ended; one that never says so cannot hold a
      // shutdown: after CLOSE_WAIT_MS the thread is ended as it is.
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        onClosed = resolve;
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
        post({ type: 'close' });
      });
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}

const PRELOADS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/**
 * The process's flags for the database thread. `--input-type` (a process started with -e) is
 * refused for a file entry. Preloads (`--import`, `--require`, loaders) are left out: they are
 * for the server's own thread (an OpenTelemetry `--import` registration, a profiler hook), and in
 * the database thread they would run a second time, or fail there (a TypeScript preload needs
 * tsx's loader, which a thread does not inherit: `spyglass: Unknown file extension ".ts"`).
 */
export function threadExecArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--input-type')) continue;
    if (PRELOADS.has(a)) {
      i++; // its value is the next argument
      continue;
    }
    if (PRELOADS.has(a.slice(0, a.indexOf('=')))) continue;
    out.push(a);
  }
  return out;
}

/**
 * A thread refuses V8 and process-wide flags in its execArgv (`node --max-old-space-size=512
 * spyglass serve` failed to open the database). They apply to every thread of the process anyway,
 * so the ones it names are left out.
 */
function newWorker(entry: string | URL, options: WorkerOptions & { execArgv: string[] }): Worker {
  try {
    return new Worker(entry, options);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
    // "Initiated Worker with invalid execArgv flags: --a, --b=1"
    const refused = new Set((err as Error).message.replace(/^[^:]*: /, '').split(', '));
    return new Worker(entry, {
      ...options,
      execArgv: options.execArgv.filter((a) => !refused.has(a)),
    });
  }
}

/** One connection: bytes written go to the thread; the thread's answers are read. */
class ThreadSocket extends Duplex {
  /** postgres.js checks it before sending its Terminate. */
  readyState = 'open';

  constructor(
    readonly conn: number,
    private readonly post: (m: ToThread, transfer?: ArrayBuffer[]) => void,
  ) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    // A copy of exactly these bytes, moved to the thread (postgres.js's buffers may be pooled).
    const bytes = new Uint8Array(chunk).buffer;
    this.post({ type: 'data', conn: this.conn, bytes }, [bytes]);
    done();
  }

  override _read(): void {}

  override _final(done: (err?: Error | null) => void): void {
    this.end_();
    done();
  }

  /** A connection destroyed without ending (a driver timeout) is ended on the thread too. */
  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.end_();
    done(err);
  }

  private end_(): void {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    this.post({ type: 'end', conn: this.conn });
  }
}
