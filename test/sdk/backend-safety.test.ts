import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../sdk/src/http.ts';
import { Spyglass } from '../../sdk/src/index.ts';

/**
 * What the SDK does with a backend that misbehaves, against real local HTTP servers: it never
 * follows a redirect with its key, never reads an answer of any size, and flush()/shutdown() end
 * within flushTimeoutMs against a backend that never answers.
 */
interface Seen {
  method: string;
  url: string;
  apiKey: string | undefined;
  body: string;
}

const servers: Server[] = [];
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s = {
        method: req.method ?? '',
        url: req.url ?? '',
        apiKey: req.headers['x-api-key'] as string | undefined,
        body,
      };
      seen.push(s);
      handler(req, res, s);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  const addr = server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, seen };
}

afterEach(async () => {
  vi.useRealTimers();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Lets promise chains that are already resolvable run (setImmediate is not faked). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

const noConfig = (res: ServerResponse) =>
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"none"}');

describe('redirects', () => {
  it('a backend that redirects to another origin never receives the key or the spans there', async () => {
    const elsewhere = await serve((_req, res) => res.writeHead(202).end('{}'));
    const redirecting = await serve((req, res) =>
      res.writeHead(307, { location: `${elsewhere.url}${req.url}` }).end(),
    );
    const warned: string[] = [];
    const sg = new Spyglass({
      url: redirecting.url,
      apiKey: 'sk-secret',
      agentName: 'redir',
      flushIntervalMs: 3_600_000,
      logger: { warn: (m) => warned.push(m) },
    });
    await sg.session({ agentName: 'redir' }, () =>
      sg.guard({ serverName: 'calc', toolName: 'add' }, () => 3),
    );
    await sg.shutdown();

    // The config read and the span batch both reached the redirecting backend, and nothing else.
    expect(new Set(redirecting.seen.map((s) => `${s.method} ${s.apiKey}`))).toEqual(
      new Set(['GET sk-secret', 'POST sk-secret']),
    );
    expect(elsewhere.seen).toEqual([]);
    expect(sg.stats()).toMatchObject({ sent: 0, buffered: 0, dropped: 2 });
    expect(warned.join('\n')).toContain('does not follow redirects');
    expect(warned.join('\n')).toContain(elsewhere.url);
  });
});

describe('answer sizes', () => {
  it('stops reading a prevention config answer past the cap and keeps the constructor config', async () => {
    let written = 0;
    let closedEarly = false;
    const total = 50 * 1024 * 1024;
    const backend = await serve((req, res) => {
      if (req.method !== 'GET') return void res.writeHead(202).end('{}');
      // A JSON body that never ends within the cap: 50 MB of spaces, written as the socket drains.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('close', () => (closedEarly = written < total));
      const chunk = Buffer.alloc(64 * 1024, ' ');
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('{}');
      };
      pump();
    });
    const warned: string[] = [];
    const sg = new Spyglass({
      url: backend.url,
      agentName: 'big',
      prevention: { loop_detection: { threshold: 2, action: 'terminate' } },
      logger: { warn: (m) => warned.push(m) },
    });
    await sg.session({ agentName: 'big' }, async () => {
      await sg.guard({ serverName: 'calc', toolName: 'same' }, () => 1);
      // The constructor's threshold of 2 stops the second identical call.
      await expect(sg.guard({ serverName: 'calc', toolName: 'same' }, () => 1)).rejects.toThrow(
        /loop/i,
      );
    });
    await sg.shutdown();
    await vi.waitFor(() => expect(closedEarly).toBe(true));
    expect(warned.join('\n')).toContain(`at most ${MAX_RESPONSE_BYTES} bytes`);
  });

  it('refuses an answer whose Content-Length is over the cap without reading it', async () => {
    const backend = await serve((req, res) => {
      if (req.method !== 'GET') return void res.writeHead(202).end('{}');
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(MAX_RESPONSE_BYTES + 1),
      });
      res.write('{"loop_threshold": 99');
    });
    const warned: string[] = [];
    const sg = new Spyglass({
      url: backend.url,
      agentName: 'cl',
      logger: { warn: (m) => warned.push(m) },
    });
    await sg.session({ agentName: 'cl' }, () => undefined);
    await sg.shutdown();
    expect(warned.join('\n')).toContain(`${MAX_RESPONSE_BYTES + 1} bytes`);
  });
});

describe('a backend that never answers', () => {
  it('shutdown() ends after flushTimeoutMs, cancels the request in flight and keeps its spans buffered', async () => {
    const arrived: IncomingMessage[] = [];
    const backend = await serve((req, res) => {
      if (req.method === 'GET') return noConfig(res);
      arrived.push(req); // never answered
    });
    const sg = new Spyglass({
      url: backend.url,
      agentName: 'hang',
      flushTimeoutMs: 1000,
      flushIntervalMs: 3_600_000,
      logger: { warn: () => undefined },
    });
    await sg.session({ agentName: 'hang' }, () =>
      sg.guard({ serverName: 'calc', toolName: 'add' }, () => 3),
    );

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    const shutdown = sg.shutdown().then(() => (done = true));
    await vi.waitFor(() => expect(arrived).toHaveLength(1), { interval: 10, timeout: 20_000 });
    const cancelled = once(arrived[0]!.socket, 'close');
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(done).toBe(true); // before the request's own timeout: nothing but flushTimeoutMs ended it
    await shutdown;
    await cancelled; // the SDK closed the connection: nothing holds the agent's process
    await vi.waitFor(() => expect(sg.stats()).toMatchObject({ sent: 0, buffered: 2 }));
  });

  it('flush() resolves after flushTimeoutMs with the spans still buffered', async () => {
    const arrived: IncomingMessage[] = [];
    const backend = await serve((req, res) => {
      if (req.method === 'GET') return noConfig(res);
      arrived.push(req);
    });
    const sg = new Spyglass({
      url: backend.url,
      agentName: 'hang2',
      flushTimeoutMs: 500,
      flushIntervalMs: 3_600_000,
      logger: { warn: () => undefined },
    });
    await sg.guard({ serverName: 'calc', toolName: 'add' }, () => 3);

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    const flushed = sg.flush().then(() => (done = true));
    await vi.waitFor(() => expect(arrived).toHaveLength(1), { interval: 10, timeout: 20_000 });
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    await settle();
    expect(done).toBe(true);
    await flushed;
    expect(sg.stats().sent).toBe(0);
    vi.useRealTimers();
    await sg.shutdown().catch(() => undefined);
  });
});
