import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { TRACE_EXPORT_PATH } from '../../src/receivers/otlp-grpc.ts';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { spawnInstance, type Instance } from '../helpers/instance.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** Spans the clients were told are stored: native ids and OTLP span ids (hex); `grpc` counts the latter. */
interface Acked {
  ids: string[];
  grpc: number;
}

/** Posts batches of native spans until `until()` is true; records the ids of every 202. */
async function httpClient(url: string, acked: Acked, until: () => boolean): Promise<void> {
  while (!until()) {
    const batch = Array.from({ length: 20 }, () =>
      nativeSpan({ span_id: randomUUID(), trace_id: randomUUID() }),
    );
    try {
      const res = await fetch(`${url}/api/traces/spans`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      });
      await res.text();
      if (res.status === 202) acked.ids.push(...batch.map((s) => s.span_id as string));
      // Paced, so the clients leave CPU for a replacement worker to start.
      await new Promise((r) => setTimeout(r, 25));
    } catch {
      // The worker holding this connection was killed or is draining: not acknowledged, try again.
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Protobuf export of `n` fresh spans an MCP instrumentation would emit, and their ids. */
async function otlpBatch(n: number): Promise<{ payload: Buffer; ids: string[] }> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'grpc-load' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  for (let i = 0; i < n; i++)
    provider
      .getTracer('load')
      .startSpan('call', { attributes: { 'mcp.server.name': 'fs', 'mcp.tool.name': 'read' } })
      .end();
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  return {
    payload: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!),
    ids: spans.map((s) => s.spanContext().spanId),
  };
}

/** Exports over OTLP/gRPC until `until()`; records the ids of every call answered OK. */
async function grpcClient(port: number, acked: Acked, until: () => boolean): Promise<void> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const pass = (b: Buffer) => b;
  try {
    while (!until()) {
      const { payload, ids } = await otlpBatch(10);
      const ok = await new Promise<boolean>((resolve) =>
        client.makeUnaryRequest(
          TRACE_EXPORT_PATH,
          pass,
          pass,
          payload,
          new Metadata(),
          { deadline: Date.now() + 5000 },
          (err) => resolve(!err),
        ),
      );
      if (ok) {
        acked.ids.push(...ids);
        acked.grpc += ids.length;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    client.close();
  }
}

async function waitFor(what: string, check: () => boolean, withinMs = 45_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * `promise`, or a failure naming `what` after `withinMs`: a step with no deadline of its own (the
 * load's clients ending, the instance's exit) says which one stalled instead of the test's timeout.
 */
async function settles<T>(what: string, promise: Promise<T>, withinMs = 45_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), withinMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** JSON log lines of the instance (primary and workers write to the same stderr). */
function logLines(inst: Instance): Array<Record<string, unknown>> {
  return inst
    .output()
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

function listeningWorkers(inst: Instance): number[] {
  return logLines(inst)
    .filter((l) => l.msg === 'spyglass listening' && typeof l.worker === 'number')
    .map((l) => l.worker as number);
}

/** Acked ids that are not in the spans table. */
async function missing(dbUrl: string, ids: string[]): Promise<string[]> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<
      { span_id: string }[]
    >`select span_id from spans where span_id = any(${ids})`;
    const stored = new Set(rows.map((r) => r.span_id));
    return ids.filter((id) => !stored.has(id));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const redisUrl = inject('redisUrl');

describe.runIf(pgAdminUrl !== null && redisUrl !== null)('SPYGLASS_WORKERS', () => {
  let dbUrl = '';
  let inst: Instance;

  beforeAll(async () => {
    dbUrl = await createPgDatabase();
    inst = await spawnInstance({
      SPYGLASS_WORKERS: '2',
      SPYGLASS_DATABASE_URL: dbUrl,
      SPYGLASS_REDIS_URL: redisUrl ?? '',
      SPYGLASS_CLUSTER_NAME: `t-${randomUUID()}`,
      // The clients below send far more than the default per-caller OTLP allowance.
      SPYGLASS_RATE_LIMITS: 'false',
    });
  });
  afterAll(async () => {
    await inst?.kill();
  });

  it('replaces a worker killed mid-load, loses no acknowledged span, and drains everything on SIGTERM', async () => {
    // What the primary and its workers logged last, for a failure to be read.
    onTestFailed(() => console.error(inst.output().slice(-6000)));
    await waitFor('both workers listening', () => listeningWorkers(inst).length === 2);
    const primary = logLines(inst).find(
      (l) => typeof l.msg === 'string' && l.msg.startsWith('workers: 2'),
    );
    expect(primary).toBeDefined();
    const started = logLines(inst).filter(
      (l) => typeof l.msg === 'string' && /^worker \d+ started \(pid \d+\)$/.test(l.msg),
    );
    expect(started.map((l) => l.worker)).toEqual([1, 2]);
    const victim = started[0]!;

    // Phase 1: load, one worker SIGKILLed in the middle of it.
    const acked: Acked = { ids: [], grpc: 0 };
    let stop = false;
    const load = [
      ...Array.from({ length: 3 }, () => httpClient(inst.url, acked, () => stop)),
      grpcClient(inst.grpcPort, acked, () => stop),
    ];
    await waitFor('some spans acknowledged', () => acked.ids.length >= 200);
    process.kill(victim.pid as number, 'SIGKILL');
    await waitFor(
      'the death and the restart logged',
      () =>
        logLines(inst).some(
          (l) =>
            l.worker === victim.worker &&
            /died \(signal SIGKILL\); restarting in 1 s$/.test(String(l.msg)),
        ) &&
        logLines(inst).some(
          (l) => l.worker === 3 && /^worker 3 started \(pid \d+\)$/.test(String(l.msg)),
        ),
    );
    await waitFor('the new worker listening', () => listeningWorkers(inst).includes(3));
    const before = acked.ids.length;
    await waitFor(
      'more spans acknowledged after the restart',
      () => acked.ids.length >= before + 200,
    );
    stop = true;
    await settles("the first load's clients to end", Promise.all(load));
    expect(acked.grpc).toBeGreaterThan(0);
    expect(await settles('the acknowledged spans read back', missing(dbUrl, acked.ids))).toEqual(
      [],
    );

    // Phase 2: SIGTERM to the primary under load; whatever was acknowledged up to then is stored.
    const late: Acked = { ids: [], grpc: 0 };
    let stop2 = false;
    const load2 = [
      httpClient(inst.url, late, () => stop2),
      httpClient(inst.url, late, () => stop2),
      grpcClient(inst.grpcPort, late, () => stop2),
    ];
    await waitFor('load running again', () => late.ids.length >= 100);
    // SIGTERM straight to a worker drains it too (exit code 0); the primary would replace it, but
    // its own SIGTERM comes first and cancels the pending restart.
    const other = started[1]!;
    process.kill(other.pid as number, 'SIGTERM');
    await waitFor('the drained worker logged', () =>
      logLines(inst).some(
        (l) =>
          l.worker === other.worker &&
          l.msg === `worker ${other.worker} (pid ${other.pid}) exited (code 0); restarting in 1 s`,
      ),
    );
    inst.child.kill('SIGTERM');
    const exit = await settles('the instance to exit after SIGTERM', inst.exited);
    stop2 = true;
    await settles("the second load's clients to end", Promise.all(load2));
    expect(exit).toEqual({ code: 0, signal: null });
    expect(inst.output()).toContain('spyglass stopped');
    expect(await missing(dbUrl, late.ids)).toEqual([]);
  }, 150_000);
});

describe('SPYGLASS_WORKERS configuration', () => {
  it('above 1 without Redis exits at start with the message, before forking', async () => {
    const attempt = spawnInstance({
      SPYGLASS_WORKERS: '2',
      SPYGLASS_DATABASE_URL: 'postgres://127.0.0.1:1/none',
      SPYGLASS_REDIS_URL: '',
    });
    await expect(attempt).rejects.toThrow(/SPYGLASS_WORKERS above 1 needs SPYGLASS_REDIS_URL/);
    await expect(attempt).rejects.not.toThrow(/worker \d+ started/);
  });

  it('auto means one per core', () => {
    expect(
      loadConfig(
        {
          SPYGLASS_WORKERS: 'auto',
          SPYGLASS_REDIS_URL: 'redis://127.0.0.1:6379',
          SPYGLASS_DATABASE_URL: 'postgres://h/db',
        },
        '/',
      ).workers,
    ).toBe(availableParallelism());
  });
});
