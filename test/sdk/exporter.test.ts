import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Spyglass } from '../../sdk/src/index.ts';
import { parseRetryAfter } from '../../sdk/src/exporter.ts';
import { freePort } from '../helpers/free-port.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';

/** Polls until check() is truthy, failing after `ms`. */
async function until<T>(check: () => T | Promise<T>, ms = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Received {
  at: number;
  spans: { span_id: string; tool_name: string }[];
}
/** A tiny backend that answers each POST with the next reply of a script, recording arrival times. */
async function scriptedBackend(
  replies: { status: number; headers?: Record<string, string> }[],
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const at = Date.now();
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url?.startsWith('/api/traces/spans'))
        received.push({ at, spans: JSON.parse(body) as Received['spans'] });
      else return void res.writeHead(404).end('{}');
      const reply = replies[Math.min(received.length - 1, replies.length - 1)]!;
      res
        .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
        .end(reply.status === 202 ? '{"accepted":1}' : '{"detail":"no"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    received,
    server,
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});
let backend: TestServer | undefined;
afterAll(async () => backend?.dispose());

const quiet = { warn: () => undefined };

describe('span export', () => {
  it('keeps the agent running while the backend is down and delivers the buffered spans once it is up; a full buffer drops the oldest', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const warned: string[] = [];
    const sg = new Spyglass({ url, flushIntervalMs: 50, logger: { warn: (m) => warned.push(m) } });
    const small = new Spyglass({ url, flushIntervalMs: 50, maxBufferedSpans: 5, logger: quiet });
    cleanups.push(
      () => sg.shutdown(),
      () => small.shutdown(),
    );

    const sessionId = `down-${Date.now()}`;
    const results = await sg.session({ agentName: 'offline', sessionId }, async () => {
      const out: number[] = [];
      for (let i = 0; i < 3; i++)
        out.push(
          await sg.guard({ serverName: 'calc', toolName: 'square', args: { i } }, () => i * i),
        );
      return out;
    });
    expect(results).toEqual([0, 1, 4]);
    for (let i = 0; i < 8; i++)
      await small.guard({ serverName: 'calc', toolName: `t${i}`, args: {} }, () => i);
    expect(small.stats()).toMatchObject({ buffered: 5, dropped: 3, sent: 0 });
    await sg.flush(); // bounded: one failed attempt, then it returns
    expect(sg.stats()).toMatchObject({ buffered: 4, sent: 0 });
    expect(sg.stats().failedAttempts).toBeGreaterThan(0);
    expect(warned.some((w) => w.includes('could not send spans'))).toBe(true);

    backend = await startTestServer({ SPYGLASS_PORT: String(port), SPYGLASS_RATE_LIMITS: 'off' });
    await until(() => sg.stats().sent === 4 && small.stats().sent === 5, 40_000);
    const stored = await getJson(`${url}/api/traces/spans?session_id=${sessionId}`);
    expect((stored.json as { tool_name: string }[]).map((s) => s.tool_name).sort()).toEqual([
      'session',
      'square',
      'square',
      'square',
    ]);
    const kept = await getJson(`${url}/api/traces/spans?server_name=calc&limit=1000`);
    const names = (kept.json as { tool_name: string }[])
      .map((s) => s.tool_name)
      .filter((n) => n.startsWith('t'));
    expect(names.sort()).toEqual(['t3', 't4', 't5', 't6', 't7']);
  });

  it('honours Retry-After on a 429 before sending again', async () => {
    const fixture = await scriptedBackend([
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 202 },
    ]);
    cleanups.push(() => new Promise<void>((r) => fixture.server.close(() => r())));
    const sg = new Spyglass({ url: fixture.url, flushIntervalMs: 20, logger: quiet });
    cleanups.push(() => sg.shutdown());
    await sg.guard({ serverName: 'calc', toolName: 'add', args: {} }, () => 1);
    await until(() => fixture.received.length >= 2, 5000);
    const [first, second] = fixture.received;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000);
    expect(second!.spans.map((s) => s.span_id)).toEqual(first!.spans.map((s) => s.span_id));
    await until(() => sg.stats().sent === 1, 2000);
    expect(sg.stats()).toMatchObject({ sent: 1, failedAttempts: 1, dropped: 0, buffered: 0 });
  });

  it('drops a batch the backend refuses with 422 without retrying it', async () => {
    const fixture = await scriptedBackend([{ status: 422 }]);
    cleanups.push(() => new Promise<void>((r) => fixture.server.close(() => r())));
    const warned: string[] = [];
    const sg = new Spyglass({
      url: fixture.url,
      flushIntervalMs: 20,
      logger: { warn: (m) => warned.push(m) },
    });
    cleanups.push(() => sg.shutdown());
    await sg.guard({ serverName: 'calc', toolName: 'first', args: {} }, () => 1);
    await until(() => sg.stats().dropped === 1, 5000);
    // A later span is sent on its own: the refused one was not queued again.
    await sg.guard({ serverName: 'calc', toolName: 'second', args: {} }, () => 2);
    await until(() => fixture.received.length >= 2, 5000);
    expect(fixture.received.map((r) => r.spans.map((s) => s.tool_name))).toEqual([
      ['first'],
      ['second'],
    ]);
    expect(sg.stats()).toMatchObject({ failedAttempts: 0, sent: 0 });
    expect(warned.some((w) => w.includes('HTTP 422'))).toBe(true);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
