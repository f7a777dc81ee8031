import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { concat, errorMessage, Framer, queryMessage, transactionStatus } from './pg-wire.ts';
import type { FromThread, ThreadData, ToThread } from './pglite-thread.ts';
import { pgliteWasm } from './pglite-wasm.ts';

/**
 * The embedded database's thread (src/store/pglite-thread.ts): PGlite runs here, off the server's
 * event loop, and answers the PostgreSQL wire protocol of the connections the main thread's
 * postgres.js opens. PGlite is one backend session, so messages run one at a time, and while a
 * connection has a transaction open only that connection's messages run (the others wait in turn).
 */
const port = parentPort!;
/**
 * What to open, sent once the main thread knows the directory (with PGlite's module when the main
 * thread compiled it: pglite-wasm.ts). A thread started ahead of the config (prewarmPgliteThread)
 * compiles the module itself, first, on V8's background threads while it loads PGlite's code and
 * waits: the main thread's event loop, busy loading the server's modules, resolved its compile
 * (and its read of the file) only once that was done, which put the compile on the start-up's
 * critical path (docs/benchmarks.md#start-up-fourth-round-2026-11-27-0800-1000-utc).
 */
const ownWasm = (workerData as ThreadData | undefined)?.compileWasm ? pgliteWasm() : undefined;
ownWasm?.catch(() => {}); // reported by the open that awaits it
const opening = new Promise<Extract<ToThread, { type: 'open' }>>((resolve) =>
  port.once('message', resolve),
);
// Imported here, after the compile above has started.
const { PGlite: PGliteClass } = await import('@electric-sql/pglite');
const { dir, conf, wasm } = await opening;
const post = (m: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

interface Conn {
  framer: Framer;
  /** Messages framed and not yet run. */
  queue: Uint8Array[];
  /** Answers produced and not yet posted. */
  out: Uint8Array[];
  ending: boolean;
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'

const conns = new Map<number, Conn>();
/** COPY requests (pglite-thread.ts copyIn), run in the open transaction between its messages. */
const copies: { id: number; sql: string; rows: ArrayBuffer }[] = [];
/** The connection whose transaction is open (its ReadyForQuery said T or E), if any. */
let owner: number | null = null;
let running = false;
let closing: (() => void) | null = null;

let pg: PGlite;
try {
  const module = wasm ?? (await ownWasm);
  pg = await PGliteClass.create(dir, { postgresqlconf: conf, pgliteWasmModule: module } as never);
  post({ type: 'ready' });
} catch (err) {
  post({ type: 'failed', message: (err as Error).message });
  process.exit(1);
}

port.on('message', (m: ToThread) => {
  if (m.type === 'data') {
    let c = conns.get(m.conn);
    if (!c) conns.set(m.conn, (c = { framer: new Framer(), queue: [], out: [], ending: false }));
    try {
      c.queue.push(...c.framer.push(new Uint8Array(m.bytes)));
    } catch {
      // Not a connection this thread can serve (a cancel request, another protocol): drop it.
      conns.delete(m.conn);
      post({ type: 'ended', conn: m.conn });
    }
  } else if (m.type === 'end') {
    const c = conns.get(m.conn);
    if (c) c.ending = true;
    else post({ type: 'ended', conn: m.conn });
  } else if (m.type === 'copy') {
    copies.push(m);
  } else if (m.type === 'close') {
    closing = () => void pg.close().then(() => post({ type: 'closed' }));
  }
  void pump();
});

/** Picks the next connection to run a message of: the transaction's owner while one is open. */
function next(): [number, Conn] | undefined {
  if (owner !== null) {
    const c = conns.get(owner);
    if (c && c.queue.length > 0) return [owner, c];
    if (c && !c.ending) return undefined; // the transaction waits for its own next message
  }
  for (const entry of conns) if (entry[1].queue.length > 0) return entry;
  return undefined;
}

async function pump(): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (;;) {
      // The transaction's owner sends a COPY only while it waits for its answer: its queue is empty.
      const copy = copies.shift();
      if (copy) {
        await runCopy(copy);
        continue;
      }
      const n = next();
      if (!n) break;
      const [id, c] = n;
      const message = c.queue.shift()!;
      const produced: Uint8Array[] = [];
      await pg.execProtocolRawStream(message, {
        // As PGlite's own queries do: files are synced once per Sync or simple Query, not per message.
        syncToFs: message[0] === SYNC || message[0] === QUERY,
        onRawData: (chunk: Uint8Array) => void produced.push(chunk.slice()),
      });
      c.out.push(...produced);
      // ReadyForQuery says whether a transaction is open after this message ('I' = idle).
      const status = transactionStatus(produced);
      if (status === 'I') owner = null;
      else if (status !== null) owner = id;
      if (c.queue.length === 0) flush(id, c);
    }
    for (const [id, c] of conns) {
      if (c.ending && c.queue.length === 0) await end(id, c);
    }
  } finally {
    running = false;
  }
  if (closing && conns.size === 0) closing();
}

/**
 * `COPY … FROM '/dev/blob'` with the rows as PGlite's blob, as a simple Query inside the open
 * transaction; its answer goes back to the caller, not to the connection's driver.
 */
async function runCopy(job: { id: number; sql: string; rows: ArrayBuffer }): Promise<void> {
  if (owner === null) {
    post({ type: 'copied', id: job.id, error: 'COPY needs an open transaction' });
    return;
  }
  const produced: Uint8Array[] = [];
  // PGlite takes the blob's bytes with arrayBuffer() (0.5.16); the rows are that already. A Blob
  // of them was two more copies of every group on this thread (the Blob's, then arrayBuffer()'s).
  await pg._handleBlob({ arrayBuffer: async () => job.rows } as Blob);
  try {
    await pg.execProtocolRawStream(queryMessage(job.sql), {
      syncToFs: false, // the transaction's COMMIT syncs
      onRawData: (chunk: Uint8Array) => void produced.push(chunk.slice()),
    });
  } finally {
    await pg._cleanupBlob();
  }
  // Still the owner's transaction, failed ('E') when the COPY was.
  post({ type: 'copied', id: job.id, error: errorMessage(produced) });
}

function flush(id: number, c: Conn): void {
  if (c.out.length === 0) return;
  const bytes = concat(c.out);
  c.out = [];
  post({ type: 'data', conn: id, bytes: bytes.buffer }, [bytes.buffer]);
}

/** A connection that ended inside its transaction leaves nothing half-done: the transaction is rolled back. */
async function end(id: number, c: Conn): Promise<void> {
  conns.delete(id);
  if (owner === id) {
    owner = null;
    await pg.exec('rollback');
  }
  flush(id, c);
  post({ type: 'ended', conn: id });
}
