/**
 * Just enough of the PostgreSQL wire protocol (version 3) for the embedded database's thread
 * (src/store/pglite-worker.ts): cutting a connection's bytes into whole frontend messages, and
 * reading the transaction status of the last ReadyForQuery in an answer.
 */

const PROTOCOL_3 = 196608;
/** A CancelRequest's code: a single-session database has nothing to cancel into. */
const CANCEL = 80877102;

/** Cuts a stream of frontend bytes into whole messages, in order. */
export class Framer {
  private pending = new Uint8Array(0);
  private started = false;

  /** Adds bytes; returns every message now complete. */
  push(bytes: Uint8Array): Uint8Array[] {
    let buf = bytes;
    if (this.pending.length > 0) {
      buf = new Uint8Array(this.pending.length + bytes.length);
      buf.set(this.pending);
      buf.set(bytes, this.pending.length);
    }
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const out: Uint8Array[] = [];
    let at = 0;
    for (;;) {
      let size: number;
      if (!this.started) {
        // The startup message has no type byte: length, then the protocol version.
        if (buf.length - at < 8) break;
        size = view.getInt32(at);
        const code = view.getInt32(at + 4);
        if (code === CANCEL) throw new Error('cancel requests are not supported');
        if (code !== PROTOCOL_3) throw new Error('the embedded database speaks protocol 3.0 only');
      } else {
        if (buf.length - at < 5) break;
        size = 1 + view.getInt32(at + 1);
      }
      if (buf.length - at < size) break;
      out.push(buf.subarray(at, at + size));
      this.started = true;
      at += size;
    }
    this.pending = buf.slice(at);
    return out;
  }
}

/**
 * The status byte of the last ReadyForQuery ('Z') among whole backend messages split over
 * `chunks`: 'I' idle, 'T' in a transaction, 'E' in a failed transaction; null when there is none.
 */
export function transactionStatus(chunks: readonly Uint8Array[]): 'I' | 'T' | 'E' | null {
  const buf = chunks.length === 1 ? chunks[0]! : concat(chunks);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let status: 'I' | 'T' | 'E' | null = null;
  for (let at = 0; at + 5 <= buf.length; at += 1 + view.getInt32(at + 1)) {
    if (buf[at] === 0x5a && at + 6 <= buf.length)
      status = String.fromCharCode(buf[at + 5]!) as 'I' | 'T' | 'E';
  }
  return status;
}

/** The message of the first ErrorResponse ('E') among whole backend messages, or null. */
export function errorMessage(chunks: readonly Uint8Array[]): string | null {
  const buf = chunks.length === 1 ? chunks[0]! : concat(chunks);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let at = 0; at + 5 <= buf.length; at += 1 + view.getInt32(at + 1)) {
    if (buf[at] !== 0x45) continue;
    // Fields: a type byte and a NUL-terminated string each, up to a zero byte. 'M' is the message.
    const end = at + 1 + view.getInt32(at + 1);
    let message = 'the database refused the COPY';
    for (let f = at + 5; f < end && buf[f] !== 0;) {
      const nul = buf.indexOf(0, f + 1);
      if (nul < 0 || nul > end) break;
      if (buf[f] === 0x4d) message = DECODER.decode(buf.subarray(f + 1, nul));
      f = nul + 1;
    }
    return message;
  }
  return null;
}

/** A simple Query ('Q') message of `sql`. */
export function queryMessage(sql: string): Uint8Array {
  const text = new TextEncoder().encode(sql);
  const out = new Uint8Array(text.length + 6);
  out[0] = 0x51;
  new DataView(out.buffer).setInt32(1, text.length + 5);
  out.set(text, 5);
  return out;
}

const DECODER = new TextDecoder();

/** The chunks as one new array of exactly their bytes. */
export function concat(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
