/**
 * Closed-loop load: `concurrency` requests in flight, each worker sending its next body as soon as
 * its previous one is answered, for a warm-up then a measured window. Only spans in 2xx answers
 * that complete inside the measured window count; everything else is an error, by kind.
 */
import { Agent, request } from 'node:http';
import {
  Client,
  credentials,
  Metadata,
  status as grpcStatus,
  type ServiceError,
} from '@grpc/grpc-js';
import type { Protocol, Template } from './payloads.ts';

export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export interface CellTarget {
  httpPort: number;
  grpcPort: number;
}

/** LoadOptions' `nextSeq`: fresh span seq numbers from `first` on, `n` at a time. */
export function seqAllocator(first = 1): (n: number) => number {
  let seq = first;
  return (n) => {
    const s = seq;
    seq += n;
    return s;
  };
}

export interface LoadOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Stop the measured window early once this many spans were acknowledged (bounds slow cells). */
  maxSpans: number;
  requestTimeoutMs: number;
  /** Allocates `n` fresh span seq numbers; returns the first. */
  nextSeq: (n: number) => number;
  /** Time origin for span start times (ms since epoch). */
  t0: number;
  /** Extra request headers (HTTP protocols), e.g. an API key. */
  headers?: Record<string, string>;
}

export interface CellResult {
  requests: number;
  spans: number;
  /** Spans acknowledged at any time (warm-up and tail included): what must be in the database. */
  ackedTotal: number;
  elapsedMs: number;
  spansPerSec: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  errors: number;
  errorKinds: Record<string, number>;
  bodyBytes: number;
}

type Sender = (body: Buffer) => Promise<string | null>; // null = ok, else an error kind

/** What a cell sends: a Template, or anything that renders bodies of `spans` spans like one. */
export type BodySource = Pick<Template, 'protocol' | 'spans' | 'render'>;

const PATHS: Record<Exclude<Protocol, 'otlp-grpc'>, { path: string; type: string }> = {
  native: { path: '/api/traces/spans', type: 'application/json' },
  'otlp-json': { path: '/v1/traces', type: 'application/json' },
  'otlp-proto': { path: '/v1/traces', type: 'application/x-protobuf' },
};

export async function runCell(
  target: CellTarget,
  template: BodySource,
  opts: LoadOptions,
): Promise<CellResult> {
  const { send, close } = makeSender(target, template.protocol, opts);
  try {
    return await drive(send, template, opts);
  } finally {
    close();
  }
}

function makeSender(
  target: CellTarget,
  protocol: Protocol,
  opts: LoadOptions,
): { send: Sender; close: () => void } {
  if (protocol === 'otlp-grpc') return grpcSender(target.grpcPort, opts);
  const { path, type } = PATHS[protocol];
  const agent = new Agent({
    keepAlive: true,
    maxSockets: opts.concurrency,
    maxFreeSockets: opts.concurrency,
  });
  const send: Sender = (body) =>
    new Promise((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: target.httpPort,
          method: 'POST',
          path,
          agent,
          headers: { ...opts.headers, 'content-type': type, 'content-length': body.length },
          timeout: opts.requestTimeoutMs,
        },
        (res) => {
          const code = res.statusCode ?? 0;
          res.resume();
          res.on('end', () => resolve(code >= 200 && code < 300 ? null : `http ${code}`));
          res.on('error', () => resolve('response error'));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (err: NodeJS.ErrnoException) =>
        resolve(err.message === 'timeout' ? 'timeout' : (err.code ?? 'request error')),
      );
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

function grpcSender(port: number, opts: LoadOptions): { send: Sender; close: () => void } {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.enable_channelz': 0,
  });
  const identity = (b: Buffer) => b;
  const send: Sender = (body) =>
    new Promise((resolve) => {
      client.makeUnaryRequest(
        TRACE_EXPORT_PATH,
        identity,
        identity,
        body,
        new Metadata(),
        { deadline: Date.now() + opts.requestTimeoutMs },
        (err: ServiceError | null) =>
          resolve(err ? `grpc ${grpcStatus[err.code] ?? err.code}` : null),
      );
    });
  return { send, close: () => client.close() };
}

async function drive(send: Sender, template: BodySource, opts: LoadOptions): Promise<CellResult> {
  const start = performance.now();
  const measureFrom = start + opts.warmupMs;
  const nominalEnd = measureFrom + opts.durationMs;
  // A window shorter than a few round trips measures nothing: keep it open (bounded) until at
  // least two answers per worker arrived in it.
  const minRequests = 2 * opts.concurrency;
  const extendLimit = measureFrom + Math.max(opts.durationMs * 10, 30_000);
  const hardStop = extendLimit + opts.requestTimeoutMs + 5_000;
  // Fixed window [measureFrom, nominalEnd] (unbiased even though group commit answers requests in
  // clusters); only when it saw fewer than minRequests answers is it stretched to the answer that
  // reached minRequests.
  let closedAt: number | null = null;
  const windowOpen = (now: number): boolean => {
    if (closedAt === null && now >= nominalEnd && requests >= minRequests) closedAt = nominalEnd;
    if (closedAt === null && now >= extendLimit) closedAt = now;
    return closedAt === null;
  };
  const latencies: number[] = [];
  const errorKinds: Record<string, number> = {};
  let requests = 0;
  let spans = 0;
  let ackedTotal = 0;
  let errors = 0;
  let bodyBytes = 0;

  const worker = async () => {
    while (windowOpen(performance.now()) && performance.now() < hardStop) {
      const body = template.render(opts.nextSeq(template.spans), opts.t0);
      const t = performance.now();
      const err = await send(body);
      const done = performance.now();
      if (err === null) ackedTotal += template.spans;
      // Throughput counts answers that arrive inside the window, whenever their request started.
      windowOpen(done);
      const inWindow = done >= measureFrom && (closedAt === null || done <= closedAt);
      if (err !== null) {
        if (inWindow) {
          errors++;
          errorKinds[err] = (errorKinds[err] ?? 0) + 1;
        }
        // Do not spin on a refusing server.
        if (
          err === 'http 503' ||
          err === 'http 429' ||
          err.includes('UNAVAILABLE') ||
          err.includes('RESOURCE_EXHAUSTED')
        )
          await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (!inWindow) continue;
      requests++;
      spans += template.spans;
      bodyBytes += body.length;
      if (latencies.length < 2_000_000) latencies.push(done - t);
      if (
        closedAt === null &&
        (spans >= opts.maxSpans || (done >= nominalEnd && requests >= minRequests))
      )
        closedAt = done;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedMs = Math.max(1, (closedAt ?? performance.now()) - measureFrom);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies.length === 0
      ? Number.NaN
      : (latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] as number);
  return {
    requests,
    spans,
    ackedTotal,
    elapsedMs,
    spansPerSec: (spans / elapsedMs) * 1000,
    p50Ms: pct(0.5),
    p95Ms: pct(0.95),
    p99Ms: pct(0.99),
    errors,
    errorKinds,
    bodyBytes,
  };
}
