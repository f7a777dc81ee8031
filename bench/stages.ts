/**
 * In-process cost of the server's per-request stages, per span, on the bench's own bodies: body
 * parse (Fastify's secure-json-parse with its default settings), decode + validate/normalise per
 * protocol, and the JSON.stringify the writer does per group (a replica of spans-repo.ts's private
 * toJsonRows). No HTTP and no database, so it shows what the CPU goes to before the SQL.
 */
import sjson from 'secure-json-parse';
import { normalizeNativeBatch } from '../src/normalize/native.ts';
import { normalizeOtlp } from '../src/normalize/otlp.ts';
import { decodeOtlpJson } from '../src/receivers/otlp-json.ts';
import { decodeOtlpProtobuf } from '../src/receivers/otlp-protobuf.ts';
import type { Span } from '../src/model/span.ts';
import { Template } from './payloads.ts';

export interface StageResult {
  batch: number;
  stage: string;
  usPerSpan: number;
}

/** Fastify's default JSON body parser settings. */
const parseJson = (text: string) =>
  sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' }) as unknown;

/** spans-repo.ts's toJsonRows, replicated (it is not exported). */
function toJsonRows(batch: readonly Span[]): string {
  return JSON.stringify(
    batch.map((s) => ({
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
    })),
  );
}

function time(batch: number, fn: () => unknown, budgetMs: number): number {
  // Warm up the JIT for half the budget: 20 calls left batch 25, measured first, running code
  // not yet optimised (otlp-proto decode 132 µs/span against 17 warm, docs/benchmarks.md).
  const warm = performance.now();
  while (performance.now() - warm < budgetMs / 2) fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < budgetMs) {
    fn();
    n++;
  }
  return ((performance.now() - start) * 1000) / (n * batch);
}

export function measureStages(batches: readonly number[], budgetMs = 300): StageResult[] {
  const out: StageResult[] = [];
  const t0 = Date.now() - 3600_000;
  for (const batch of batches) {
    const native = Template.build('native', batch).render(1, t0);
    const otlpJson = Template.build('otlp-json', batch).render(1, t0);
    const otlpProto = Template.build('otlp-proto', batch).render(1, t0);
    const nativeText = native.toString('utf8');
    const jsonText = otlpJson.toString('utf8');
    const nativeBody = parseJson(nativeText);
    const jsonBody = parseJson(jsonText);
    const spans = normalizeNativeBatch(nativeBody, 'default', 1_000_000);
    const add = (stage: string, fn: () => unknown) =>
      out.push({ batch, stage, usPerSpan: time(batch, fn, budgetMs) });
    add('native: body parse (secure-json-parse)', () => parseJson(nativeText));
    add('native: validate + normalise (ajv, normalizeNativeBatch)', () =>
      normalizeNativeBatch(nativeBody, 'default', 1_000_000),
    );
    add('otlp-json: body parse (secure-json-parse)', () => parseJson(jsonText));
    add('otlp-json: decode + normalise', () =>
      normalizeOtlp(decodeOtlpJson(jsonBody), null, 'default'),
    );
    add('otlp-proto: decode + normalise', () =>
      normalizeOtlp(decodeOtlpProtobuf(otlpProto), null, 'default'),
    );
    add('writer: JSON.stringify of the rows (toJsonRows replica)', () => toJsonRows(spans));
  }
  return out;
}
