import { Client, Metadata, credentials, status } from '@grpc/grpc-js';
import { sql } from 'drizzle-orm';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Writer } from 'protobufjs/minimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_EXPORT_PATH } from '../../src/receivers/otlp-grpc.ts';
import { execute } from '../../src/store/db.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { mulberry32 } from '../helpers/seeded-random.ts';

/**
 * Seeded, bounded fuzzing of the four ingest paths (native JSON, OTLP/HTTP JSON, OTLP/HTTP
 * protobuf, OTLP/gRPC) with valid, dirty (lone surrogates, NUL, emoji) and invalid spans (values
 * out of range, runaway nesting, oversized keys) plus broken requests. Whatever arrives: no 5xx,
 * nothing of a rejected span is stored, the good spans of a mixed OTLP request are. Reproduce a
 * failure with SPYGLASS_FUZZ_SEED=<seed printed in the assertion message>.
 */
const SEED = Number(process.env.SPYGLASS_FUZZ_SEED ?? 0x5eed);
const CASES = { native: 700, otlpJson: 500, otlpProto: 500, grpc: 300 };
const IN_FLIGHT = 16;

/** Seeded picks over mulberry32. */
function prng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof prng>;

const DIRTY = [
  'x\ud800',
  '\udc00y',
  'nul\0byte',
  'emoji \ud83d\ude80',
  'é',
  '',
  ' ',
  '\u202e',
  'a'.repeat(300),
];
const text = (r: Rng) => (r.chance(0.3) ? r.pick(DIRTY) : `t${r.int(1000)}`);
const deepArgs = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const T0 = Date.parse('2026-11-20T10:00:00Z');

type Badness = 'tokens' | 'year' | 'deep' | 'wide' | 'latency' | 'nested-attr';
/** One generated span: `bad` says what was broken on purpose (null: must be stored). */
interface Gen {
  id: string;
  bad: Badness | null;
  plain: boolean;
}

let counter = 0;
const newId = () => (++counter).toString(16).padStart(16, '0');

function nativeCase(r: Rng): { body: string; spans: Gen[]; broken: boolean } {
  const spans: Gen[] = [];
  const items: string[] = [];
  for (let i = 0, n = 1 + r.int(4); i < n; i++) {
    const id = `fz-${newId()}`;
    const bad: Badness | null = r.chance(0.3)
      ? r.pick(['tokens', 'year', 'deep', 'wide', 'latency'] as const)
      : null;
    const start = bad === 'year' ? '0000-01-01T00:00:00Z' : new Date(T0 + r.int(1e6)).toISOString();
    const span: Record<string, unknown> = {
      span_id: id,
      session_id: text(r),
      server_name:
        bad === 'wide'
          ? 'é'.repeat(600)
          : `srv${r.int(5)}${r.chance(0.2) ? r.pick(DIRTY) : ''}` || 's',
      tool_name: text(r),
      started_at: start,
      ended_at: bad === 'year' ? '0000-01-01T00:00:01Z' : start,
      status: r.pick(['success', 'error', 'timeout']),
      input_tokens: bad === 'tokens' ? 2 ** 31 + r.int(1e6) : r.int(5000),
      input_args: { [text(r)]: text(r) },
      output_result: text(r),
    };
    let json = JSON.stringify(span);
    if (bad === 'deep')
      json = json.replace(/"input_args":\{[^}]*\}/, `"input_args":${deepArgs(33 + r.int(500))}`);
    if (bad === 'latency') json = json.replace('"started_at"', '"latency_ms":1e309,"started_at"');
    items.push(json);
    spans.push({ id, bad, plain: false });
  }
  const broken = r.chance(0.05);
  const body = `[${items.join(',')}]`;
  return { body: broken ? body.slice(0, r.int(body.length)) : body, spans, broken };
}

interface OtlpSpanSpec {
  id: string;
  name: string;
  attrs: [string, unknown][];
  startNs: string | number;
  endNs: string | number;
}

function otlpSpans(r: Rng, json: boolean): { specs: OtlpSpanSpec[]; spans: Gen[] } {
  const specs: OtlpSpanSpec[] = [];
  const spans: Gen[] = [];
  for (let i = 0, n = 1 + r.int(5); i < n; i++) {
    const id = newId();
    const plain = r.chance(0.1);
    const kinds = [
      'tokens',
      'deep',
      'wide',
      ...(json ? (['year', 'nested-attr'] as const) : []),
    ] as const;
    const bad: Badness | null = !plain && r.chance(0.3) ? r.pick(kinds) : null;
    const attrs: [string, unknown][] = plain
      ? [['http.request.method', 'GET']]
      : [
          ['gen_ai.tool.name', text(r) || 'tool'],
          ['gen_ai.conversation.id', text(r)],
        ];
    if (!plain)
      attrs.push(['mcp.server.name', bad === 'wide' ? 'é'.repeat(600) : `srv${r.int(5)}`]);
    if (bad === 'tokens') attrs.push(['gen_ai.usage.input_tokens', 2 ** 31 + r.int(1e6)]);
    // Token usage marks an LLM span (docs/ingest.md#otlp-span-selection): plain spans carry none.
    else if (r.chance(0.5) && !plain) attrs.push(['gen_ai.usage.input_tokens', r.int(100_000)]);
    attrs.push([
      'gen_ai.tool.call.arguments',
      bad === 'deep' ? deepArgs(33 + r.int(500)) : JSON.stringify({ [text(r)]: text(r) }),
    ]);
    if (bad === 'nested-attr') attrs.push(['x.nested', { depth: 40 }]);
    const start = BigInt(T0 + r.int(1e6)) * 1_000_000n;
    specs.push({
      id,
      name: plain ? 'GET /' : 'execute_tool',
      attrs,
      startNs: bad === 'year' ? 1e300 : String(start),
      endNs: String(start + BigInt(r.int(1e9))),
    });
    spans.push({ id, bad, plain });
  }
  return { specs, spans };
}

function jsonValue(v: unknown): unknown {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  let nested: unknown = { stringValue: 'bottom' };
  for (let i = 0; i < (v as { depth: number }).depth; i++)
    nested = { kvlistValue: { values: [{ key: 'k', value: nested }] } };
  return nested;
}

function otlpJsonBody(specs: OtlpSpanSpec[]): string {
  const spans = specs.map((s) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: s.id,
    name: s.name,
    startTimeUnixNano: s.startNs,
    endTimeUnixNano: s.endNs,
    attributes: s.attrs.map(([key, v]) => ({ key, value: jsonValue(v) })),
  }));
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] },
        scopeSpans: [{ spans }],
      },
    ],
  });
}

/** ExportTraceServiceRequest with protobufjs's Writer (field numbers of the OTLP proto). */
function otlpProtoBody(specs: OtlpSpanSpec[]): Buffer {
  const w = Writer.create().uint32(10).fork(); // resource_spans
  w.uint32(18).fork(); // scope_spans
  for (const s of specs) {
    w.uint32(18).fork(); // span
    w.uint32(10)
      .bytes(Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'))
      .uint32(18)
      .bytes(Buffer.from(s.id, 'hex'))
      .uint32(42)
      .string(s.name);
    w.uint32(57).fixed64(String(s.startNs)).uint32(65).fixed64(String(s.endNs));
    for (const [key, v] of s.attrs) {
      w.uint32(74).fork().uint32(10).string(key).uint32(18).fork();
      if (typeof v === 'string') w.uint32(10).string(v);
      else w.uint32(24).int64(v as number);
      w.ldelim().ldelim();
    }
    w.ldelim();
  }
  w.ldelim().ldelim();
  return Buffer.from(w.finish());
}

/** Rejected span ids named in partial_success.error_message ("span <hex>: …"). */
const rejectedIds = (message: string) =>
  new Set([...message.matchAll(/span ([0-9a-f]{16}):/g)].map((m) => m[1] as string));

/** partial_success.error_message of a protobuf ExportTraceServiceResponse ('' when empty). */
const protoMessage = (bytes: Uint8Array) =>
  bytes.length === 0
    ? ''
    : (ProtobufTraceSerializer.deserializeResponse(bytes).partialSuccess?.errorMessage ?? '');

describe('ingest fuzzing (seeded, bounded)', () => {
  let server: TestServer;
  /** The HTTP cases go through app.inject() (same routes, parsers and hooks, no socket); gRPC over its port. */
  const http = (url: string, contentType: string, payload: string | Buffer) =>
    server.app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });
  let grpc: Client;
  /** `garbage`: the request was cut short on purpose, so none of its spans has to be stored. */
  const outcomes: {
    what: string;
    spans: Gen[];
    garbage: boolean;
    status: number;
    rejected: Set<string>;
  }[] = [];
  /**
   * Every broken expectation, with its case: asserted empty at the end (one expect() per span of
   * thousands cost a tenth of the file's CPU).
   */
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
    grpc = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure());
  });
  afterAll(async () => {
    grpc?.close();
    await server?.dispose();
  });

  async function runCase(r: Rng, kind: keyof typeof CASES, n: number): Promise<void> {
    const what = `seed ${SEED} ${kind} #${n}`;
    if (kind === 'native') {
      const c = nativeCase(r);
      const res = await http('/api/traces/spans', 'application/json', c.body);
      const status = res.statusCode;
      outcomes.push({
        what,
        spans: c.spans,
        garbage: c.broken,
        status,
        rejected: new Set(status === 202 ? [] : c.spans.map((s) => s.id)),
      });
      if (!c.broken && c.spans.every((s) => s.bad === null) && status !== 202)
        problems.push(`${what}: a clean request answered ${status}, not 202`);
      if (c.spans.some((s) => s.bad !== null) && status < 400)
        problems.push(`${what}: a request with a bad span answered ${status}, not >= 400`);
      return;
    }
    const { specs, spans } = otlpSpans(r, kind === 'otlpJson');
    const garbage = r.chance(0.05);
    if (kind === 'grpc') {
      let payload = otlpProtoBody(specs);
      if (garbage) payload = payload.subarray(0, r.int(payload.length));
      const reply = await new Promise<{ code: number; response?: Buffer }>((resolve) => {
        const pass = (b: Buffer) => b;
        grpc.makeUnaryRequest(
          TRACE_EXPORT_PATH,
          pass,
          pass,
          payload,
          new Metadata(),
          (err, response) =>
            resolve(
              err ? { code: err.code } : { code: status.OK, ...(response ? { response } : {}) },
            ),
        );
      });
      if (reply.code !== status.OK && reply.code !== status.INVALID_ARGUMENT)
        problems.push(`${what}: gRPC answered code ${reply.code}, not OK or INVALID_ARGUMENT`);
      const message = protoMessage(new Uint8Array(reply.response ?? Buffer.alloc(0)));
      outcomes.push({
        what,
        spans,
        garbage,
        status: reply.code === status.OK ? 200 : 400,
        rejected: reply.code === status.OK ? rejectedIds(message) : new Set(spans.map((s) => s.id)),
      });
      return;
    }
    const json = kind === 'otlpJson';
    let body: Buffer = json ? Buffer.from(otlpJsonBody(specs)) : otlpProtoBody(specs);
    if (garbage) body = body.subarray(0, r.int(body.length));
    const res = await http(
      '/v1/traces',
      json ? 'application/json' : 'application/x-protobuf',
      body,
    );
    let rejected = new Set(spans.map((s) => s.id));
    if (res.statusCode === 200) {
      rejected = rejectedIds(
        json
          ? (JSON.parse(res.body).partialSuccess?.errorMessage ?? '')
          : protoMessage(new Uint8Array(res.rawPayload)),
      );
    }
    outcomes.push({ what, spans, garbage, status: res.statusCode, rejected });
  }

  it(
    `survives ${Object.values(CASES).reduce((a, b) => a + b)} generated requests: no 5xx, rejected spans absent, good spans stored`,
    { timeout: 120_000 },
    async () => {
      const r = prng(SEED);
      const queue = Object.entries(CASES).flatMap(([kind, n]) =>
        Array.from({ length: n }, (_, i) => [kind as keyof typeof CASES, i] as const),
      );
      // Cases are generated in order from one PRNG, then run a few at a time (group commit).
      const jobs = queue.map(([kind, i]) => {
        const caseRng = prng(Math.floor(r.next() * 2 ** 32));
        return () => runCase(caseRng, kind, i);
      });
      for (let i = 0; i < jobs.length; i += IN_FLIGHT)
        await Promise.all(jobs.slice(i, i + IN_FLIGHT).map((job) => job()));

      for (const o of outcomes)
        if (o.status >= 500) problems.push(`${o.what}: answered ${o.status}`);
      const { rows } = await execute<{ span_id: string }>(
        server.services.store.db,
        sql`select span_id from spans`,
      );
      const stored = new Set(rows.map((row) => row.span_id));
      let good = 0;
      let bad = 0;
      for (const o of outcomes) {
        for (const s of o.spans) {
          const wasStored = stored.has(s.id);
          if ((o.rejected.has(s.id) || s.plain) && wasStored)
            problems.push(`${o.what}: span ${s.id} (${s.bad ?? 'plain'}) must not be stored`);
          if (s.bad !== null) {
            bad++;
            if (wasStored) problems.push(`${o.what}: bad span ${s.id} (${s.bad}) was stored`);
          } else if (!s.plain && !o.garbage && o.status < 300) {
            good++;
            if (!wasStored)
              problems.push(`${o.what}: good span ${s.id} of an accepted request was not stored`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(good).toBeGreaterThan(800);
      expect(bad).toBeGreaterThan(250);
    },
  );
});
