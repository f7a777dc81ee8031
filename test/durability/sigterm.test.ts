import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { seedPglite } from '../helpers/data-dir.ts';
import { freePort } from '../helpers/free-port.ts';
import { getJson, nativeSpan } from '../helpers/spans.ts';
import { CHILD_NODE_FLAGS } from '../helpers/child-node.ts';

/**
 * SIGTERM under load against the real CLI (`node bin/spyglass.js serve`): every request answered
 * 202 must be stored and readable after a restart on the same data; requests refused during the
 * shutdown (503, connection errors) are fine; the process exits 0 within a bound.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'bin/spyglass.js');

const CLIENTS = 8;
const BATCH = 100;
const MAX_BATCHES_PER_CLIENT = 200;
/**
 * Shutdown must finish well before an orchestrator's grace period (Kubernetes: 30 s); past this
 * the process counts as hung (`terminate` answers 'timeout'), a bound on a hang, not a speed.
 */
const EXIT_WITHIN_MS = 15_000;

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

type Exit = { code: number | null; signal: NodeJS.Signals | null };

interface Cli {
  child: ChildProcess;
  port: number;
  base: string;
  /** Everything the process logged so far (pino JSON on stderr), for failure messages. */
  log(): string;
  /** Resolves when `text` appears in the log. */
  logged(text: string): Promise<void>;
  exited: Promise<Exit>;
  /** SIGTERM, then the exit, or 'timeout' after `ms`. */
  terminate(ms?: number): Promise<Exit | 'timeout'>;
}

/** Starts `spyglass serve` on a free loopback port and resolves once it logs that it is listening. */
async function startCli(env: Record<string, string>, dataDir: string): Promise<Cli> {
  const port = await freePort();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => !k.startsWith('SPYGLASS_') && v !== undefined),
  ) as Record<string, string>;
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, CLI, 'serve'], {
    cwd: dataDir, // no stray ./spyglass.yaml
    env: {
      ...inherited,
      SPYGLASS_HOST: '127.0.0.1',
      SPYGLASS_PORT: String(port),
      SPYGLASS_GRPC_PORT: '0',
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_LOG_LEVEL: 'info',
      SPYGLASS_RATE_LIMITS: 'off', // a load test from one client address, not a rate-limit test
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let log = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    log += d.toString();
    for (const w of [...waiters]) {
      if (!log.includes(w.text)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<Exit>((res) =>
    child.once('exit', (code, signal) => res({ code, signal })),
  );
  const logged = (text: string) =>
    log.includes(text)
      ? Promise.resolve()
      : new Promise<void>((res) => waiters.push({ text, resolve: res }));
  const withTimeout = <T>(p: Promise<T>, ms: number) =>
    Promise.race([
      p,
      new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), ms).unref()),
    ]);

  const started = await withTimeout(
    Promise.race([logged('"spyglass listening"').then(() => 'ok' as const), exited]),
    60_000,
  );
  if (started !== 'ok') {
    child.kill('SIGKILL');
    throw new Error(`spyglass did not start (${JSON.stringify(started)}):\n${log}`);
  }
  return {
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    log: () => log,
    logged,
    exited,
    terminate: (ms = EXIT_WITHIN_MS) => {
      child.kill('SIGTERM');
      return withTimeout(exited, ms);
    },
  };
}

/** POST over an explicit keep-alive agent; resolves to the status, or 'error' when the connection failed. */
function postSpans(agent: Agent, port: number, spans: unknown[]): Promise<number | 'error'> {
  const body = Buffer.from(JSON.stringify(spans));
  return new Promise((res) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/traces/spans',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (r) => {
        r.resume();
        r.on('end', () => res(r.statusCode ?? 'error'));
        r.on('error', () => res('error'));
      },
    );
    req.on('error', () => res('error'));
    req.end(body);
  });
}

/** Span ids of one session, following X-Next-Cursor. */
async function sessionSpanIds(base: string, sessionId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await getJson(
      `${base}/api/traces/spans?session_id=${encodeURIComponent(sessionId)}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    for (const s of res.json as { span_id: string }[]) ids.add(s.span_id);
    cursor = res.headers.get('x-next-cursor');
    if (!cursor) return ids;
  }
  throw new Error('more than 100 pages');
}

/**
 * SIGTERM while a keep-alive client has a request in flight, as an exporter (OTel SDK, undici, a
 * Python requests.Session) keeps its connection open between batches: the request is answered, then
 * the connection sits idle on the client's side until the process has exited. Shutdown must not
 * wait for the client to close it (Fastify's keepAliveTimeout is 72 s): an exit at all (not
 * 'timeout', see EXIT_WITHIN_MS) shows it did not. Resolves with the request's status and the exit.
 */
async function terminateWithKeepAliveClient(
  cli: Cli,
): Promise<{ status: number | 'error'; exit: Exit | 'timeout' }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const spans = [nativeSpan({ session_id: 'sess-keepalive' })];
    const body = Buffer.from(JSON.stringify(spans));
    // Deterministically in flight: `Expect: 100-continue` makes the server confirm it has parsed the
    // request head; then SIGTERM, wait until the server logs that it is shutting down, send the body.
    let continued!: () => void;
    const headParsed = new Promise<void>((res) => (continued = res));
    const status = new Promise<number | 'error'>((res) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: cli.port,
          path: '/api/traces/spans',
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            expect: '100-continue',
          },
        },
        (r) => {
          r.resume();
          r.on('end', () => res(r.statusCode ?? 'error'));
        },
      );
      req.on('error', () => res('error'));
      req.on('continue', () => {
        continued();
        void cli.logged('"shutting down').then(() => req.end(body));
      });
      req.flushHeaders();
    });
    await headParsed;
    // The idle connection stays open on the client's side until `finally`.
    const exit = cli.terminate();
    return { status: await status, exit: await exit };
  } finally {
    agent.destroy();
  }
}

interface Sent {
  session: string;
  spanIds: string[];
  status: number | 'error' | 'pending';
}

// Each back end has its own process, data directory or database, and port: the two run side by side.
describe.concurrent.each(backends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'SIGTERM under load' : `SIGTERM under load (skipped: no ${name} in this run)`,
    () => {
      it('commits every acknowledged span, exits 0, and serves them after a restart; exits promptly although a keep-alive client keeps its connection open', async () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'spyglass-sigterm-'));
        tempDirs.push(dataDir);
        const backendEnv = await env();
        if (!backendEnv.SPYGLASS_DATABASE_URL) seedPglite(dataDir);
        const first = await startCli(backendEnv, dataDir);
        const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

        const sent: Sent[] = [];
        let inFlight = 0;
        let acknowledged = 0;
        let onAck: (() => void) | null = null;
        // The clients send until the server is gone (a connection error), through the shutdown, so
        // its refusals are seen too; no fixed load window, which on a busy machine could close
        // before the server acknowledged anything.
        const run = randomUUID().slice(0, 8);

        const client = async (c: number) => {
          const session = `sigterm-${run}-${c}`;
          for (let b = 0; b < MAX_BATCHES_PER_CLIENT; b++) {
            const spans = Array.from({ length: BATCH }, (_, i) =>
              nativeSpan({
                span_id: `${session}-${b}-${i}`,
                session_id: session,
                tool_name: `t${b}`,
              }),
            );
            const entry: Sent = {
              session,
              spanIds: spans.map((s) => s.span_id as string),
              status: 'pending',
            };
            sent.push(entry);
            inFlight++;
            entry.status = await postSpans(agent, first.port, spans);
            inFlight--;
            if (entry.status === 202) {
              acknowledged++;
              onAck?.();
            }
            if (entry.status === 'error') break; // the server is gone
          }
        };
        const load = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

        try {
          // Let the load build up (an event, not a sleep): SIGTERM once a few batches per client were acknowledged.
          await new Promise<void>((res) => {
            onAck = () => acknowledged >= CLIENTS * 2 && res();
            void load.then(() => res());
          });
          onAck = null;
          const inFlightAtSignal = inFlight;
          const exit = await first.terminate();
          await load;
          agent.destroy();
          expect(exit, `spyglass log:\n${first.log()}`).toEqual({ code: 0, signal: null });
          expect(first.log()).toContain('spyglass stopped');

          expect(
            inFlightAtSignal,
            'SIGTERM should hit a server with requests in flight',
          ).toBeGreaterThan(0);
          const acked = sent.filter((s) => s.status === 202);
          expect(acked.length).toBeGreaterThanOrEqual(CLIENTS * 2);
          const refused = sent.filter((s) => s.status !== 202);
          // Refusals during shutdown are 503 or a closed connection, never a server error.
          for (const s of refused) expect([503, 'error']).toContain(s.status);

          // Same data, new process: every acknowledged span is there.
          const second = await startCli(backendEnv, dataDir);
          try {
            const stored = new Map<string, Set<string>>();
            for (const session of new Set(sent.map((s) => s.session)))
              stored.set(session, await sessionSpanIds(second.base, session));
            const missing = acked.flatMap((s) =>
              s.spanIds.filter((id) => !stored.get(s.session)?.has(id)),
            );
            expect(
              missing,
              `${missing.length} of ${acked.length * BATCH} acknowledged spans lost`,
            ).toEqual([]);
            // A batch is committed whole or not at all, acknowledged or not.
            for (const s of sent)
              expect([0, BATCH]).toContain(
                s.spanIds.filter((id) => stored.get(s.session)?.has(id)).length,
              );
            console.info(
              `[sigterm/${name}] ${sent.length} batches, ${acked.length} acknowledged and all stored, ${inFlightAtSignal} in flight at SIGTERM, ` +
                `refused: ${refused.filter((s) => s.status === 503).length}×503, ${refused.filter((s) => s.status === 'error').length}×connection error`,
            );
            // The restarted process is stopped with a keep-alive client's request in flight (this was a
            // test of its own, on a process started for it alone): answered, and a prompt clean exit.
            const { status, exit } = await terminateWithKeepAliveClient(second);
            expect(status).toBe(202);
            expect(exit, `spyglass log:\n${second.log()}`).toEqual({ code: 0, signal: null });
          } finally {
            if (second.child.exitCode === null && second.child.signalCode === null)
              second.child.kill('SIGKILL');
          }
        } finally {
          agent.destroy();
        }
      }, 90_000);
    },
  );
});
