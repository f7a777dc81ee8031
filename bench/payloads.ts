/**
 * Pre-built request bodies for the load generator, with span ids and timestamps patched per request.
 *
 * One template per (protocol, batch size) is built before timing. Its spans carry marker ids and
 * marker times; the byte offsets of every marker are found once, and each request copies the
 * template and overwrites those bytes with fresh values of the same length (a fixed-width hex id,
 * a fixed64, a 19-digit decimal or a 24-char ISO date). So every request carries distinct span ids
 * (the table dedups on (project_id, span_id, started_at)) and increasing timestamps (realistic index shape),
 * at the cost of a memcpy and a few writes per span.
 *
 * OTLP bodies come from real ReadableSpans (@opentelemetry/sdk-trace-base) serialised with
 * @opentelemetry/otlp-transformer's JsonTraceSerializer / ProtobufTraceSerializer, exactly what the
 * official exporters send; they carry gen_ai / mcp attributes so Spyglass's normaliser selects them.
 */
import { context, trace, SpanKind, SpanStatusCode, type HrTime } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type IdGenerator,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { getTableColumns } from 'drizzle-orm';
import { spans as spansTable } from '../src/store/schema.ts';
import { genaiAgent, genaiTool, type PayloadProfile } from './genai-profile.ts';

export type Protocol = 'native' | 'otlp-json' | 'otlp-proto' | 'otlp-grpc';
export const PROTOCOLS: readonly Protocol[] = ['native', 'otlp-json', 'otlp-proto', 'otlp-grpc'];

/** Spans per trace in a batch: one agent (root) span and its tool calls. */
const TRACE_SIZE = 5;
/** Template markers: span seq numbers and times that cannot occur by accident in the bodies. */
const MARK_SEQ = 0x00a1b2c3d4e5f000n;
const MARK_TIME_MS = 1_500_000_000_000; // 2017-07-14: 19-digit nanos, 24-char ISO, like real times
const SPAN_ID_PREFIX = 0x5b00000000000000n;
const TRACE_ID_HI = 'b3e7c0de5b0a7c11'; // first 8 bytes of every trace id

/** One abstract span of a batch; each protocol renders it its own way. */
export interface SpanShape {
  /** Index in the batch. */
  i: number;
  /** Index of its trace's root in the batch. */
  root: number;
  isRoot: boolean;
  name: string;
  agentName: string;
  serverName: string;
  toolName: string;
  sessionId: string;
  /** Offset of the span's start from its slot time, ms (0..899). */
  latencyMs: number;
  failed: boolean;
  errorMessage: string | null;
  inputArgs: Record<string, unknown> | null;
  outputResult: string | null;
  llmInput: string | null;
  llmOutput: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  modelId: string | null;
  /** OTLP attributes of the realistic profile that the normaliser does not read (empty for small). */
  extraAttributes: Record<string, string | number | boolean | string[]>;
}

const TOOLS = [
  ['filesystem', 'read_file'],
  ['filesystem', 'write_file'],
  ['github', 'search_issues'],
  ['postgres', 'query'],
  ['web', 'fetch_url'],
  ['slack', 'post_message'],
] as const;
const AGENTS = ['planner', 'researcher', 'coder', 'reviewer'];

/**
 * A deterministic batch: every 5th span is an agent span, the rest its MCP tool calls (1 in 20 fails).
 * `genai`: the same spans with the contents and attributes of genai-profile.ts (~1 KB each).
 */
export function batchShapes(size: number, profile: PayloadProfile = 'small'): SpanShape[] {
  const out: SpanShape[] = [];
  for (let i = 0; i < size; i++) {
    const root = i - (i % TRACE_SIZE);
    const isRoot = i === root;
    const agentName = AGENTS[(root / TRACE_SIZE) % AGENTS.length] as string;
    const sessionId = `session-${(root / TRACE_SIZE) % 50}`;
    if (isRoot) {
      out.push({
        i,
        root,
        isRoot,
        name: `invoke_agent ${agentName}`,
        agentName,
        serverName: agentName,
        toolName: 'answer the user question',
        sessionId,
        latencyMs: 850,
        failed: false,
        errorMessage: null,
        inputArgs: null,
        outputResult: null,
        llmInput: JSON.stringify([
          {
            role: 'user',
            content: `Summarise the open issues tagged bug in repo acme/widgets, batch item ${i}`,
          },
        ]),
        llmOutput: JSON.stringify([
          {
            role: 'assistant',
            content:
              'There are 12 open bugs; the three oldest concern the sync engine and its retry policy.',
          },
        ]),
        inputTokens: 1200 + i,
        outputTokens: 256,
        modelId: 'gpt-4o-mini',
        extraAttributes: {},
      });
      if (profile === 'genai')
        Object.assign(
          out[out.length - 1] as SpanShape,
          genaiAgent(i, agentName, sessionId, 'gpt-4o-mini', 1200 + i, 256),
        );
      continue;
    }
    const [serverName, toolName] = TOOLS[i % TOOLS.length] as readonly [string, string];
    const failed = i % 20 === 7;
    out.push({
      i,
      root,
      isRoot,
      name: `mcp.${serverName}.${toolName}`,
      agentName,
      serverName,
      toolName,
      sessionId,
      latencyMs: 5 + ((i * 37) % 400),
      failed,
      errorMessage: failed ? 'ENOENT: no such file or directory' : null,
      inputArgs: {
        path: `/srv/data/projects/acme/file-${i}.txt`,
        max_bytes: 65536,
        encoding: 'utf-8',
      },
      outputResult: failed
        ? null
        : JSON.stringify({
            content: [
              {
                type: 'text',
                text: `line 1 of file ${i}\nline 2: the quick brown fox jumps over the lazy dog`,
              },
            ],
          }),
      llmInput: null,
      llmOutput: null,
      inputTokens: null,
      outputTokens: null,
      modelId: null,
      extraAttributes: {},
    });
    if (profile === 'genai')
      Object.assign(
        out[out.length - 1] as SpanShape,
        genaiTool(i, serverName, toolName, sessionId, failed),
      );
  }
  return out;
}

// ---- value encodings (fixed width, so a template can be patched in place) ----

const spanIdHex = (seq: bigint) => (SPAN_ID_PREFIX | seq).toString(16).padStart(16, '0');
const traceIdHex = (rootSeq: bigint) => TRACE_ID_HI + rootSeq.toString(16).padStart(16, '0');
/** Slot time of span seq n: 1 ms apart, from `t0`; the marker template uses MARK_TIME_MS and 1 s slots. */
const startMs = (t0: number, seq: number) => t0 + seq;

type SiteKind =
  | 'span-hex'
  | 'trace-hex'
  | 'span-bin'
  | 'trace-bin'
  | 'start-iso'
  | 'end-iso'
  | 'start-dec'
  | 'end-dec'
  | 'start-le'
  | 'end-le';

interface Site {
  offset: number;
  kind: SiteKind;
  /** Batch index whose seq the value derives from (the root for trace ids / parent ids). */
  j: number;
  /** Latency added for end times. */
  extraMs: number;
}

/** A body template and the places to patch per request. */
export class Template {
  readonly spans: number;
  private constructor(
    readonly protocol: Protocol,
    readonly profile: PayloadProfile,
    private readonly bytes: Buffer,
    private readonly sites: Site[],
    size: number,
  ) {
    this.spans = size;
  }

  get byteLength(): number {
    return this.bytes.length;
  }

  /**
   * A fresh body whose span j has seq `base + j` (so ids base..base+size-1 are used) and starts at
   * t0 + (base + j) ms.
   */
  render(base: number, t0: number): Buffer {
    const out = Buffer.allocUnsafe(this.bytes.length);
    this.bytes.copy(out);
    const b = BigInt(base);
    for (const s of this.sites) {
      const seq = base + s.j;
      switch (s.kind) {
        case 'span-hex':
          out.write(spanIdHex(b + BigInt(s.j)), s.offset, 'latin1');
          break;
        case 'trace-hex':
          out.write(traceIdHex(b + BigInt(s.j)), s.offset, 'latin1');
          break;
        case 'span-bin':
          out.writeBigUInt64BE(SPAN_ID_PREFIX | (b + BigInt(s.j)), s.offset);
          break;
        case 'trace-bin':
          out.write(TRACE_ID_HI, s.offset, 'hex');
          out.writeBigUInt64BE(b + BigInt(s.j), s.offset + 8);
          break;
        case 'start-iso':
        case 'end-iso':
          out.write(new Date(startMs(t0, seq) + s.extraMs).toISOString(), s.offset, 'latin1');
          break;
        case 'start-dec':
        case 'end-dec':
          out.write(`${startMs(t0, seq) + s.extraMs}000000`, s.offset, 'latin1');
          break;
        case 'start-le':
        case 'end-le':
          out.writeBigUInt64LE(BigInt(startMs(t0, seq) + s.extraMs) * 1_000_000n, s.offset);
          break;
      }
    }
    return out;
  }

  static build(protocol: Protocol, size: number, profile: PayloadProfile = 'small'): Template {
    const shapes = batchShapes(size, profile);
    const bytes =
      protocol === 'native'
        ? nativeBody(shapes)
        : otlpBody(shapes, protocol === 'otlp-json' ? 'json' : 'proto');
    const sites: Site[] = [];
    const markTime = (j: number) => MARK_TIME_MS + j * 1000;
    const find = (needle: Buffer, kind: SiteKind, j: number, extraMs: number, expected: number) => {
      let n = 0;
      for (
        let at = bytes.indexOf(needle);
        at >= 0;
        at = bytes.indexOf(needle, at + needle.length)
      ) {
        sites.push({ offset: at, kind, j, extraMs });
        n++;
      }
      if (n !== expected)
        throw new Error(
          `${protocol}/${size}: found ${n} copies of the ${kind} marker of span ${j}, expected ${expected}`,
        );
    };
    const binary = protocol === 'otlp-proto' || protocol === 'otlp-grpc';
    const children = (j: number) => shapes.filter((s) => s.root === j && !s.isRoot).length;
    for (const s of shapes) {
      const seq = MARK_SEQ + BigInt(s.i);
      // A root's id also appears as the parent id of each of its children.
      const idCopies = 1 + (s.isRoot ? children(s.i) : 0);
      const traceCopies = s.isRoot ? 1 + children(s.i) : 0;
      const start = markTime(s.i);
      const end = start + s.latencyMs;
      if (binary) {
        const id = Buffer.alloc(8);
        id.writeBigUInt64BE(SPAN_ID_PREFIX | seq);
        find(id, 'span-bin', s.i, 0, idCopies);
        if (s.isRoot) find(Buffer.from(traceIdHex(seq), 'hex'), 'trace-bin', s.i, 0, traceCopies);
        const le = (ms: number) => {
          const b = Buffer.alloc(8);
          b.writeBigUInt64LE(BigInt(ms) * 1_000_000n);
          return b;
        };
        find(le(start), 'start-le', s.i, 0, 1);
        find(le(end), 'end-le', s.i, s.latencyMs, 1);
      } else {
        find(Buffer.from(spanIdHex(seq), 'latin1'), 'span-hex', s.i, 0, idCopies);
        if (s.isRoot)
          find(Buffer.from(traceIdHex(seq), 'latin1'), 'trace-hex', s.i, 0, traceCopies);
        if (protocol === 'native') {
          find(Buffer.from(new Date(start).toISOString(), 'latin1'), 'start-iso', s.i, 0, 1);
          find(Buffer.from(new Date(end).toISOString(), 'latin1'), 'end-iso', s.i, s.latencyMs, 1);
        } else {
          find(Buffer.from(`${start}000000`, 'latin1'), 'start-dec', s.i, 0, 1);
          find(Buffer.from(`${end}000000`, 'latin1'), 'end-dec', s.i, s.latencyMs, 1);
        }
      }
    }
    sites.sort((a, b) => a.offset - b.offset);
    return new Template(protocol, profile, bytes, sites, size);
  }
}

// ---- native JSON (docs/ingest.md#native-spans) ----

function nativeBody(shapes: SpanShape[]): Buffer {
  const body = shapes.map((s) => {
    const seq = MARK_SEQ + BigInt(s.i);
    const start = MARK_TIME_MS + s.i * 1000;
    return {
      span_id: spanIdHex(seq),
      trace_id: traceIdHex(MARK_SEQ + BigInt(s.root)),
      parent_span_id: s.isRoot ? null : spanIdHex(MARK_SEQ + BigInt(s.root)),
      session_id: s.sessionId,
      agent_name: s.agentName,
      span_type: s.isRoot ? 'agent' : 'tool_call',
      server_name: s.serverName,
      tool_name: s.toolName,
      started_at: new Date(start).toISOString(),
      ended_at: new Date(start + s.latencyMs).toISOString(),
      latency_ms: s.latencyMs,
      status: s.failed ? 'error' : 'success',
      error: s.errorMessage,
      input_args: s.inputArgs,
      output_result: s.outputResult,
      llm_input: s.llmInput,
      llm_output: s.llmOutput,
      input_tokens: s.inputTokens,
      output_tokens: s.outputTokens,
      model_id: s.modelId,
    };
  });
  return Buffer.from(JSON.stringify(body), 'utf8');
}

// ---- OTLP, from real SDK spans ----

function otlpBody(shapes: SpanShape[], encoding: 'json' | 'proto'): Buffer {
  const ids: { trace: string[]; span: string[] } = { trace: [], span: [] };
  const idGenerator: IdGenerator = {
    generateTraceId: () => ids.trace.shift() ?? fail('trace id'),
    generateSpanId: () => ids.span.shift() ?? fail('span id'),
  };
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator,
    resource: defaultResource().merge(
      resourceFromAttributes({
        'service.name': 'bench-agent',
        'service.version': '1.4.2',
        'deployment.environment.name': 'bench',
      }),
    ),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('spyglass-bench', '1.0.0');
  const hr = (ms: number): HrTime => [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
  let rootCtx = context.active();
  for (const s of shapes) {
    const seq = MARK_SEQ + BigInt(s.i);
    const start = MARK_TIME_MS + s.i * 1000;
    ids.span.push(spanIdHex(seq));
    if (s.isRoot) ids.trace.push(traceIdHex(seq));
    const attributes: Record<string, string | number | boolean | string[]> = {
      'gen_ai.agent.name': s.agentName,
      'gen_ai.conversation.id': s.sessionId,
      ...s.extraAttributes,
    };
    if (s.isRoot) {
      Object.assign(attributes, {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.description': s.toolName,
        'gen_ai.request.model': s.modelId as string,
        'gen_ai.usage.input_tokens': s.inputTokens as number,
        'gen_ai.usage.output_tokens': s.outputTokens as number,
        'gen_ai.input.messages': s.llmInput as string,
        'gen_ai.output.messages': s.llmOutput as string,
      });
    } else {
      Object.assign(attributes, {
        'mcp.server.name': s.serverName,
        'mcp.tool.name': s.toolName,
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.call.arguments': JSON.stringify(s.inputArgs),
        'network.transport': 'pipe',
      });
      if (s.outputResult !== null) attributes['gen_ai.tool.call.result'] = s.outputResult;
      if (s.failed) attributes['error.type'] = 'tool_error';
    }
    const span = tracer.startSpan(
      s.name,
      { kind: s.isRoot ? SpanKind.INTERNAL : SpanKind.CLIENT, startTime: hr(start), attributes },
      s.isRoot ? context.active() : rootCtx,
    );
    if (s.isRoot) rootCtx = trace.setSpan(context.active(), span);
    if (s.failed)
      span.setStatus({ code: SpanStatusCode.ERROR, message: s.errorMessage ?? 'error' });
    span.end(hr(start + s.latencyMs));
  }
  const spans: ReadableSpan[] = exporter.getFinishedSpans();
  if (spans.length !== shapes.length)
    throw new Error(`expected ${shapes.length} finished spans, got ${spans.length}`);
  const bytes =
    encoding === 'json'
      ? JsonTraceSerializer.serializeRequest(spans)
      : ProtobufTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('OTLP serializer returned nothing');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function fail(what: string): never {
  throw new Error(`bench id generator ran out of ${what}s`);
}

// ---- rows for the COPY / insert experiments (the shape the normaliser produces) ----

/**
 * Every `spans` column but ingested_at (its default), from the src schema so a new column does not
 * silently drop out of the COPY; columns toJsonRow does not know travel as NULL.
 */
export const SPAN_COLUMNS: readonly string[] = Object.values(getTableColumns(spansTable))
  .map((c) => c.name)
  .filter((n) => n !== 'ingested_at');

/** The src Span model (src/model/span.ts) for span seq base+j, as the receivers would hand it to the writer. */
export interface RowSpan {
  spanId: string;
  traceId: string | null;
  parentSpanId: string | null;
  sessionId: string | null;
  projectId: string;
  spanType: 'tool_call' | 'agent' | 'handoff';
  serverName: string;
  toolName: string;
  agentName: string | null;
  status: 'success' | 'error' | 'timeout' | 'prevented';
  error: string | null;
  startedAt: Date;
  endedAt: Date;
  latencyMs: number;
  inputArgs: Record<string, unknown> | null;
  outputResult: string | null;
  llmInput: string | null;
  llmOutput: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  modelId: string | null;
  healthTag: null;
  costUsd: number | null;
}

export function rowSpans(shapes: SpanShape[], base: number, t0: number): RowSpan[] {
  return shapes.map((s) => {
    const start = startMs(t0, base + s.i);
    return {
      spanId: spanIdHex(BigInt(base + s.i)),
      traceId: traceIdHex(BigInt(base + s.root)),
      parentSpanId: s.isRoot ? null : spanIdHex(BigInt(base + s.root)),
      sessionId: s.sessionId,
      projectId: 'default',
      spanType: s.isRoot ? 'agent' : 'tool_call',
      serverName: s.serverName,
      toolName: s.toolName,
      agentName: s.agentName,
      status: s.failed ? 'error' : 'success',
      error: s.errorMessage,
      startedAt: new Date(start),
      endedAt: new Date(start + s.latencyMs),
      latencyMs: s.latencyMs,
      inputArgs: s.inputArgs,
      outputResult: s.outputResult,
      llmInput: s.llmInput,
      llmOutput: s.llmOutput,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      modelId: s.modelId,
      healthTag: null,
      // What the ingest service's cost estimate puts on an agent span with tokens and a known model.
      costUsd: s.isRoot ? 0.000334 : null,
    };
  });
}

/** The row as the JSON object spans-repo.ts's toJsonRows builds for json_populate_recordset. */
export function toJsonRow(s: RowSpan): Record<string, unknown> {
  return {
    project_id: s.projectId,
    span_id: s.spanId,
    trace_id: s.traceId,
    parent_span_id: s.parentSpanId,
    session_id: s.sessionId,
    span_type: s.spanType,
    server_name: s.serverName,
    tool_name: s.toolName,
    agent_name: s.agentName,
    status: s.status,
    error: s.error,
    started_at: s.startedAt.toISOString(),
    ended_at: s.endedAt.toISOString(),
    latency_ms: s.latencyMs,
    input_args: s.inputArgs,
    output_result: s.outputResult,
    llm_input: s.llmInput,
    llm_output: s.llmOutput,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    model_id: s.modelId,
    health_tag: s.healthTag,
    cost_usd: s.costUsd,
    cost_estimated: s.costUsd === null ? null : false,
  };
}

/** COPY ... FROM STDIN (text format) lines for these rows, columns in SPAN_COLUMNS order. */
export function toCopyText(rows: readonly RowSpan[]): string {
  let out = '';
  for (const s of rows) {
    const r = toJsonRow(s);
    let line = '';
    for (let i = 0; i < SPAN_COLUMNS.length; i++) {
      const v = r[SPAN_COLUMNS[i] as string];
      if (i > 0) line += '\t';
      line +=
        v === null || v === undefined
          ? '\\N'
          : copyField(
              typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v),
            );
    }
    out += `${line}\n`;
  }
  return out;
}

const COPY_SPECIAL = /[\\\t\n\r]/;
function copyField(v: string): string {
  if (!COPY_SPECIAL.test(v)) return v;
  return v.replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}
