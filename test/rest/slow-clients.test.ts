import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Slow, idle and too many connections (docs/api.md "Connections"), with raw sockets against the real
 * server and small configured timeouts. Loopback is made an ordinary client address (trusted
 * proxies are set elsewhere), so the per-address cap applies to these sockets.
 */

interface Client {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

/** A connection from the loopback address `from`: each test has an address (and its count) of its own. */
function open(port: number, from: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
    socket.once('error', () => undefined); // a reset shows up as 'close' too
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

const REQUEST_HEAD =
  'POST /api/traces/spans HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';

describe('slow and idle clients, connections per address', () => {
  // Every deadline at the configurable minimum (1 s): the tests below wait them out.
  const config = configFile(
    'http:\n  headers_timeout_seconds: 1\n  request_timeout_seconds: 1\n  keep_alive_timeout_seconds: 1\n  max_connections_per_address: 3\n',
  );
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    server = await startTestServer({
      SPYGLASS_CONFIG: config.path,
      SPYGLASS_TRUSTED_PROXY_CIDRS: '192.0.2.0/24',
    });
    port = Number(new URL(server.httpUrl).port);
  });
  afterAll(async () => {
    await server?.dispose();
    config.remove();
  });

  it('a 4th connection from one address gets 429 and is closed; the first three are served', async () => {
    const from = '127.0.0.2';
    const held = await Promise.all([open(port, from), open(port, from), open(port, from)]);
    try {
      const extra = await open(port, from);
      const answer = await extra.closed;
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
      expect(answer).toContain('{"detail":"too many open connections from this address"}');
      const first = held[0]!;
      first.socket.write(
        'GET /api/liveness HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      );
      expect(await first.closed).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const c of held) c.socket.destroy();
    }
  });

  // Each waits out a deadline on one connection from an address of its own: side by side.
  describe.concurrent('deadlines', () => {
    it('a body that never finishes is answered 408 and closed after the request timeout', async () => {
      const c = await open(port, '127.0.0.3');
      c.socket.write(`${REQUEST_HEAD}[{"span_id":`);
      expect(await c.closed).toMatch(/^HTTP\/1\.1 408 /);
    });

    it('headers that never finish are answered 408 and closed after the headers timeout', async () => {
      const c = await open(port, '127.0.0.4');
      c.socket.write('GET /api/liveness HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      expect(await c.closed).toMatch(/^HTTP\/1\.1 408 /);
    });

    it('a connection that sends nothing is closed', async () => {
      const c = await open(port, '127.0.0.5');
      await expect(c.closed).resolves.toBeTypeOf('string');
      expect(c.socket.destroyed).toBe(true);
    });

    it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
      const c = await open(port, '127.0.0.6');
      c.socket.write('GET /api/liveness HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const all = await c.closed;
      expect(all).toMatch(/^HTTP\/1\.1 200 /);
      expect(all).toContain('Keep-Alive: timeout=1');
    });
  });
});
