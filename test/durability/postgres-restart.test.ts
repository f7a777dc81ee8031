import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAdminUrl } from '../helpers/backends.ts';
import { findPgBin, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, nativeSpan } from '../helpers/spans.ts';

/**
 * PostgreSQL goes away under load, service in-process. The group-commit writer retries transient
 * errors for up to 15 s, so a request is answered 202 once its spans are committed after the
 * database is back, or 503 with Retry-After; never 500, and no acknowledged span is lost.
 *
 * Uses a private cluster: stopping the shared one would break the other test files.
 * Readiness is probed during the outage as an orchestrator would; with postgres@3.4.9 that can crash
 * the process from a setImmediate (porsager/postgres#1154, #1208), which Vitest reports as an
 * unhandled error here.
 */

const CLIENTS = 8;
const BATCH = 100;
const MAX_BATCHES_PER_CLIENT = 400;
/** Hard stop for the load whatever happens. */
const LOAD_LIMIT_MS = 30_000;
/** Longer than the service's short-lived caches of database answers (API-key presence: 2 s). */
const LONG_OUTAGE_MS = 3000;

const run = promisify(execFile);

interface Sent {
  session: string;
  spanIds: string[];
  sentAt: number;
  doneAt: number;
  status: number | 'error' | 'pending';
  retryAfter: string | undefined;
}

function postSpans(
  agent: Agent,
  port: number,
  spans: unknown[],
): Promise<{ status: number | 'error'; retryAfter: string | undefined }> {
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
        r.on('end', () =>
          res({ status: r.statusCode ?? 'error', retryAfter: r.headers['retry-after'] }),
        );
        r.on('error', () => res({ status: 'error', retryAfter: undefined }));
      },
    );
    req.on('error', () => res({ status: 'error', retryAfter: undefined }));
    req.end(body);
  });
}

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

const readiness = async (base: string): Promise<number | 'error'> => {
  try {
    const res = await fetch(`${base}/api/readiness`);
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'error';
  }
};

/**
 * CLIENTS concurrent clients, each posting batches of BATCH spans with unique ids under its own
 * session, until `stop()` (or LOAD_LIMIT_MS / MAX_BATCHES_PER_CLIENT, whichever comes first).
 */
function startLoad(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const sent: Sent[] = [];
  const id = randomUUID().slice(0, 8);
  const hardStop = Date.now() + LOAD_LIMIT_MS;
  let stopAt = Infinity;
  /** Waits for `n` acknowledgements of batches completed at or after `after` or sent after it. */
  let ackWaiter: { after: number; n: number; by: 'done' | 'sent'; resolve: () => void } | null =
    null;
  const acks: { sentAt: number; doneAt: number }[] = [];
  const count = (after: number, by: 'done' | 'sent') =>
    acks.filter((a) => (by === 'done' ? a.doneAt >= after : a.sentAt > after)).length;

  const send = async (session: string, b: number | string, via: Agent): Promise<Sent> => {
    const spans = Array.from({ length: BATCH }, (_, i) =>
      nativeSpan({ span_id: `${session}-${b}-${i}`, session_id: session }),
    );
    const entry: Sent = {
      session,
      spanIds: spans.map((s) => s.span_id as string),
      sentAt: Date.now(),
      doneAt: 0,
      status: 'pending',
      retryAfter: undefined,
    };
    sent.push(entry);
    const { status, retryAfter } = await postSpans(via, port, spans);
    Object.assign(entry, { status, retryAfter, doneAt: Date.now() });
    if (status === 202) {
      acks.push({ sentAt: entry.sentAt, doneAt: entry.doneAt });
      const w = ackWaiter;
      if (w && count(w.after, w.by) >= w.n) {
        ackWaiter = null;
        w.resolve();
      }
    }
    return entry;
  };
  const client = async (c: number) => {
    const session = `pgdown-${id}-${c}`;
    for (let b = 0; b < MAX_BATCHES_PER_CLIENT && Date.now() < Math.min(stopAt, hardStop); b++)
      await send(session, b, agent);
  };
  const done = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c))).finally(() =>
    agent.destroy(),
  );
  let extra = 0;

  return {
    sent,
    done,
    /**
     * Resolves after `n` acknowledgements of batches that completed at or after `after` (`by:
     * 'done'`) or were sent after it (`by: 'sent'`), or when the load ends.
     */
    acked(n: number, after = 0, by: 'done' | 'sent' = 'done'): Promise<void> {
      if (count(after, by) >= n) return Promise.resolve();
      return new Promise<void>((resolve) => {
        ackWaiter = { after, n, by, resolve };
        void done.then(() => resolve());
      });
    },
    stopIn(ms: number) {
      stopAt = Date.now() + ms;
    },
    /**
     * One more batch from a new client on a new connection. The load's own clients are all waiting
     * on the writer while the database is down; this one reaches the service during the outage.
     */
    async sendFresh(): Promise<Sent> {
      const fresh = new Agent({ keepAlive: false });
      try {
        return await send(`pgdown-${id}-fresh`, extra++, fresh);
      } finally {
        fresh.destroy();
      }
    },
  };
}

/** What every test here asserts once the load is over. */
async function assertOutcome(base: string, sent: Sent[], outage: { start: number; end: number }) {
  // Never a server error or a dropped connection: 202, or 503 with Retry-After.
  expect(
    sent
      .filter((s) => s.status !== 202 && s.status !== 503)
      .map((s) => ({ status: s.status, sentAt: s.sentAt - outage.start })),
  ).toEqual([]);
  for (const s of sent.filter((x) => x.status === 503)) expect(s.retryAfter).toMatch(/^\d+$/);

  // The outage really hit requests, and the load went on afterwards.
  expect(
    sent.filter((s) => s.sentAt <= outage.end && s.doneAt >= outage.start).length,
  ).toBeGreaterThan(0);
  expect(sent.some((s) => s.sentAt > outage.end && s.status === 202)).toBe(true);

  // Ready again.
  let ready: number | 'error' = 'error';
  for (let i = 0; i < 100 && ready !== 200; i++) {
    ready = await readiness(base);
    if (ready !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  expect(ready).toBe(200);

  // Every acknowledged span is stored; every batch whole or not at all.
  const stored = new Map<string, Set<string>>();
  for (const session of new Set(sent.map((s) => s.session)))
    stored.set(session, await sessionSpanIds(base, session));
  const acked = sent.filter((s) => s.status === 202);
  const missing = acked.flatMap((s) => s.spanIds.filter((id) => !stored.get(s.session)?.has(id)));
  expect(missing, `${missing.length} of ${acked.length * BATCH} acknowledged spans lost`).toEqual(
    [],
  );
  for (const s of sent)
    expect([0, BATCH]).toContain(s.spanIds.filter((id) => stored.get(s.session)?.has(id)).length);
}

const summary = (sent: Sent[]) =>
  `${sent.length} batches, ${sent.filter((s) => s.status === 202).length}×202, ${sent.filter((s) => s.status === 503).length}×503`;

const hasPg = pgAdminUrl !== null && findPgBin() !== null;

describe.runIf(hasPg)(
  hasPg
    ? 'PostgreSQL outage under load'
    : 'PostgreSQL outage under load (skipped: no PostgreSQL in this run)',
  () => {
    let cluster: PgCluster;
    let server: TestServer;
    let port: number;

    beforeAll(async () => {
      cluster = await startPgCluster();
      // Rate limits off: this is a load test from one client address.
      server = await startTestServer({
        SPYGLASS_DATABASE_URL: await cluster.createDatabase(),
        SPYGLASS_RATE_LIMITS: 'off',
      });
      port = Number(new URL(server.httpUrl).port);
    });
    afterAll(async () => {
      try {
        await server?.dispose();
      } finally {
        await cluster?.stop();
      }
    });

    it('restart (fast shutdown, start): keeps every acknowledged span, 202 or 503 + Retry-After, ready again', async () => {
      const load = startLoad(port);
      try {
        await load.acked(CLIENTS * 2); // the load is flowing: an event, not a sleep

        // Watch readiness while the database restarts.
        const probes: (number | 'error')[] = [];
        let restarting = true;
        const watch = (async () => {
          for (let i = 0; restarting && i < 1000; i++) {
            probes.push(await readiness(server.httpUrl));
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const start = Date.now();
        // Started again once a probe has seen the database down: on a busy machine a probe in
        // flight can outlast a fast restart, and the run would see no 503 at all.
        await cluster.restart(() =>
          expect.poll(() => probes.includes(503), { timeout: 20_000 }).toBe(true),
        );
        const end = Date.now();
        restarting = false;
        await watch;

        // Keep the load going until the service commits again (the writer's backoff may hold it up to
        // ~2 s after the database is back) and has acknowledged a batch per client sent after it was.
        await load.acked(CLIENTS, end, 'sent');
        load.stopIn(0);
        await load.done;

        expect(probes).toContain(503);
        expect(probes.filter((p) => p !== 200 && p !== 503)).toEqual([]);
        await assertOutcome(server.httpUrl, load.sent, { start, end });
        console.info(
          `[postgres-restart] restart took ${end - start} ms; ${summary(load.sent)}; readiness while restarting: ${probes.join(',')}`,
        );
      } finally {
        load.stopIn(0);
        await load.done;
      }
    }, 90_000);

    it(`a ${LONG_OUTAGE_MS / 1000} s outage: 202 after the retry or 503 + Retry-After, never 500`, async () => {
      const bin = findPgBin() as string;
      const pgCtl = (...args: string[]) => {
        const argv = [join(bin, 'pg_ctl'), '-D', cluster.dataDir, ...args];
        return process.getuid?.() === 0
          ? run('runuser', ['-u', 'postgres', '--', ...argv])
          : run(argv[0] as string, argv.slice(1));
      };
      const load = startLoad(port);
      try {
        await load.acked(CLIENTS * 2);
        const start = Date.now();
        await pgCtl('-m', 'fast', '-w', 'stop');
        // The outage must outlast the service's caches; its length is the point, so this one is a timer.
        await new Promise((r) => setTimeout(r, LONG_OUTAGE_MS));
        const duringOutage = await readiness(server.httpUrl);
        // New requests during the outage: each waits in the writer and gets 202 once the database is
        // back, or 503 + Retry-After; either way not 500.
        const fresh = [load.sendFresh(), load.sendFresh()];
        // `restart` on a stopped cluster starts it with the options of its last start (postmaster.opts).
        await pgCtl('-w', '-l', join(cluster.dataDir, 'server.log'), 'restart').catch(
          (err: { stderr?: string }) => {
            throw new Error(`pg_ctl restart failed: ${err.stderr ?? String(err)}`);
          },
        );
        const end = Date.now();

        await load.acked(CLIENTS, end, 'sent');
        load.stopIn(0);
        await load.done;
        await Promise.all(fresh);

        expect(duringOutage).toBe(503);
        await assertOutcome(server.httpUrl, load.sent, { start, end });
        console.info(`[postgres-outage] outage ${end - start} ms; ${summary(load.sent)}`);
      } finally {
        load.stopIn(0);
        await load.done;
      }
    }, 90_000);
  },
);
