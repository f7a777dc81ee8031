import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel's ephemeral range (where port 0 listens and outgoing connections take their local
 * port), read once; Linux's default when it cannot be read.
 */
const ephemeral = (() => {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi)) return { lo: lo as number, hi: hi as number };
  } catch {
    // not Linux: keep the default
  }
  return { lo: 32768, hi: 60999 };
})();

/** The ports handed out: 20000 up to the ephemeral range (or above it when that starts low). */
const RANGE =
  ephemeral.lo - 20000 >= 4000
    ? { lo: 20000, hi: ephemeral.lo - 1 }
    : { lo: ephemeral.hi + 1, hi: 65535 };

function listenOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A loopback port that was free a moment ago, for listeners that cannot take port 0 or that must
 * come back on the same port (a restarted PostgreSQL or Redis). It is taken outside the kernel's
 * ephemeral range on purpose: a port from that range can be taken in the meantime as the local
 * port of any outgoing connection, and while a server is down, a client retrying against it can
 * even connect to itself (a TCP self-connect, when the kernel picks the server's port as the local
 * one) and hold the port, so the server cannot start again. Ports outside the range are only ever
 * taken by an explicit listen.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = RANGE.lo + Math.floor(Math.random() * (RANGE.hi - RANGE.lo + 1));
    if (await listenOnce(port)) return port;
  }
  throw new Error(`no free loopback port in ${RANGE.lo}-${RANGE.hi} after 50 tries`);
}
