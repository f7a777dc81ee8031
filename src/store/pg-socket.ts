import { Socket } from 'node:net';

/** What postgres.js passes its `socket` option: the parsed connection options. */
interface SocketTarget {
  host: string[];
  port: number[];
  /** A Unix socket path, when the host is a directory. */
  path?: string | false;
}

/**
 * postgres.js's `socket` option: each connection's TCP socket with `TCP_NODELAY` set, opened
 * here because postgres.js opens plain sockets and offers no other way to set it. With Nagle's
 * algorithm on, a small message written while a large one's last segment is unacknowledged (a
 * COPY's CopyDone after its rows) waited for that acknowledgement, which Linux delays up to 40 ms: a commit of a 100-span group by COPY took
 * 60-90 ms instead of 10-20 (docs/benchmarks.md, batch 25 on PostgreSQL).
 *
 * The socket is returned while it connects: postgres.js then writes its startup (or TLS
 * request) at once, which the socket sends once connected, and a failure to connect reaches it
 * as the socket's error and close, as on its own sockets; its connect timeout runs until the
 * server is ready. A URL naming several hosts keeps postgres.js's own sockets (noDelayOption):
 * postgres.js moves to the next host itself after a failure, which a socket given to it skips.
 */
export function noDelaySockets(): (target: SocketTarget) => Socket {
  return (target) => {
    const socket = new Socket();
    if (target.path) return socket.connect(target.path);
    const host = target.host[0] ?? 'localhost';
    const port = target.port[0] ?? 5432;
    socket.once('connect', () => socket.setNoDelay(true));
    // postgres.js names the TLS server (SNI) after the socket's host, as on its own sockets.
    return Object.assign(socket.connect(port, host), { host, port });
  };
}

/**
 * postgres.js options giving `url`'s connections TCP_NODELAY: none for a URL with several hosts
 * (`postgres://a,b/db`), whose failover postgres.js does with its own sockets.
 */
export function noDelayOption(url: string): object {
  const authority = url.replace(/^[a-z]+:\/\//i, '').split(/[/?#]/)[0] ?? '';
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  return hosts.includes(',') ? {} : { socket: noDelaySockets() };
}
