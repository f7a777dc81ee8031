import { HEALTH_TAGS, SPAN_TYPES, type HealthTag, type Span, type SpanType } from '../model/span.ts';
import type { AttrValue, Attrs, DecodedExport, DecodedSpan } from '../model/otlp.ts';
import { AGENT_OPERATIONS, ALIASES, FRAMEWORK_KIND_KEYS, FRAMEWORK_KINDS, OWN } from './otlp-aliases.ts';
import { checkSpan } from './span-checks.ts';

export interface OtlpNormalizeResult {
  spans: Span[];
  /** Spans that are not agent or tool spans (plain HTTP, DB...): ignored, as spec §2.1 says. */
  ignored: number;
  /** Agent or tool spans that cannot be stored, one line per problem; they go to partial_success. */
  rejected: OtlpRejection[];
}

export interface OtlpRejection {
  /** The span's id (hex), so a client can find it. */
  spanId: string;
  problems: string[];
}

/**
 * Maps decoded OTLP spans to Spyglass spans (spec §2.1, decisions §3). `keyProjectId` is the
 * project of a project-bound API key, which wins over the resource's `spyglass.project_id`.
 */
export function normalizeOtlp(req: DecodedExport, keyProjectId: string | null, defaultProject: string): OtlpNormalizeResult {
  const spans: Span[] = [];
  const rejected: OtlpRejection[] = [];
  let ignored = 0;
  for (const rs of req.resourceSpans) {
    const service = text(rs.resource['service.name']);
    const projectId = keyProjectId ?? text(rs.resource[OWN.projectId]) ?? defaultProject;
    for (const s of rs.spans) {
      // Its attributes could not be read, so it cannot even be classified: rejected, not ignored.
      if (s.problem !== undefined) {
        rejected.push({ spanId: s.spanId, problems: [s.problem] });
        continue;
      }
      const kind = selectKind(s);
      if (kind === undefined) {
        ignored++;
        continue;
      }
      const span = toSpan(s, kind, service, projectId);
      const problems = checkSpan(span);
      if (problems.length === 0) spans.push(span);
      else rejected.push({ spanId: s.spanId, problems: problems.map((p) => `${p.field}: ${p.msg}`) });
    }
  }
  return { spans, ignored, rejected };
}

/** undefined = not an agent/tool span; otherwise the span type it implies (null: decide later). */
function selectKind(s: DecodedSpan): SpanType | null | undefined {
  const a = s.attributes;
  const own = text(a[OWN.spanType]);
  if (own && (SPAN_TYPES as readonly string[]).includes(own)) return own as SpanType;
  if (s.name.startsWith('mcp.') || 'gen_ai.tool.name' in a || 'mcp.method.name' in a) return null;
  if ('mcp.server.name' in a && 'mcp.tool.name' in a) return null;
  if ('gen_ai.operation.name' in a) return null;
  for (const key of FRAMEWORK_KIND_KEYS) {
    const k = text(a[key]);
    if (k && k in FRAMEWORK_KINDS) return FRAMEWORK_KINDS[k] ?? null;
  }
  return undefined;
}

function toSpan(s: DecodedSpan, kind: SpanType | null, service: string | undefined, projectId: string): Span {
  const a = s.attributes;
  const llmInput = first(a, ALIASES.llmInput, serialize);
  const llmOutput = first(a, ALIASES.llmOutput, serialize);
  const operation = text(a['gen_ai.operation.name']);
  const agentOperation = operation !== undefined && AGENT_OPERATIONS.has(operation);
  const spanType: SpanType = kind ?? (agentOperation || llmInput !== null || llmOutput !== null ? 'agent' : 'tool_call');
  const agentName = first(a, ALIASES.agentName, text) ?? service ?? null;
  const fromName = mcpNameParts(s.name);

  let serverName = first(a, ['mcp.server.name'], text) ?? fromName?.server ?? first(a, ALIASES.serverName, text);
  let toolName = first(a, ALIASES.toolName, text) ?? fromName?.tool;
  if (spanType === 'agent' && agentName) {
    // Spec §2.1: an agent span's server_name is the agent and its tool_name the task.
    serverName = agentName;
    toolName ??= text(a['gen_ai.agent.description']) ?? s.name;
  } else if (spanType === 'handoff') {
    serverName = agentName ?? serverName;
    const target = text(a[OWN.handoffTarget]) ?? toolName;
    toolName = target ? (target.startsWith('→') ? target : `→ ${target}`) : s.name;
  }

  const failed = s.statusCode === 2;
  const errorType = first(a, ALIASES.errorType, text);
  const errorText = failed ? s.statusMessage || errorType || 'error' : null;
  const timedOut = failed && /time[d ]?out/i.test(`${errorType ?? ''} ${s.statusMessage}`);
  const healthTag = text(a[OWN.healthTag]);

  return {
    spanId: s.spanId,
    traceId: s.traceId || null,
    parentSpanId: s.parentSpanId || null,
    sessionId: first(a, ALIASES.sessionId, text),
    projectId,
    spanType,
    serverName: serverName ?? service ?? 'unknown',
    toolName: toolName ?? s.name,
    agentName,
    status: timedOut ? 'timeout' : failed ? 'error' : 'success',
    error: errorText,
    startedAt: new Date(s.startTimeMs),
    endedAt: new Date(Math.max(s.endTimeMs, s.startTimeMs)),
    latencyMs: Math.max(0, s.endTimeMs - s.startTimeMs),
    inputArgs: first(a, ALIASES.inputArgs, toArgs),
    outputResult: failed ? null : first(a, ALIASES.outputResult, serialize),
    llmInput,
    llmOutput,
    inputTokens: first(a, ALIASES.inputTokens, count),
    outputTokens: first(a, ALIASES.outputTokens, count),
    modelId: first(a, ALIASES.modelId, text),
    healthTag: healthTag && (HEALTH_TAGS as readonly string[]).includes(healthTag) ? (healthTag as HealthTag) : null,
    costUsd: null,
    costEstimated: null,
  };
}

/** `mcp.<server>.<tool>` → its parts; a tool name may itself contain dots. */
function mcpNameParts(name: string): { server: string; tool: string } | undefined {
  const m = /^mcp\.([^.]+)\.(.+)$/.exec(name);
  return m ? { server: m[1] as string, tool: m[2] as string } : undefined;
}

function first<T>(a: Attrs, keys: readonly string[], convert: (v: AttrValue) => T | undefined): T | null {
  for (const key of keys) {
    const v = a[key];
    if (v === undefined || v === null) continue;
    const out = convert(v);
    if (out !== undefined) return out;
  }
  return null;
}

function text(v: AttrValue | undefined): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function serialize(v: AttrValue): string | undefined {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function count(v: AttrValue): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
}

/** Tool arguments arrive as a JSON string (semconv) or a structured value; always stored as an object. */
function toArgs(v: AttrValue): Record<string, unknown> | undefined {
  let value: unknown = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v);
    } catch {
      return { value: v };
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return { value };
}
