import { HEALTH_TAGS, type HealthTag, type Span, type SpanType } from '../model/span.ts';
import type { Attrs, DecodedExport, DecodedSpan } from '../model/otlp.ts';
import { ALIASES, CACHE_TOKEN_ALIASES, FLATTENED_MESSAGES, OWN } from './otlp-aliases.ts';
import { ExportAgents } from './otlp-agents.ts';
import { keepSelectedTraces, type Unselected } from './otlp-keep-all.ts';
import { selectKind } from './otlp-select.ts';
import { count, first, flattenedMessages, serialize, text, toArgs } from './otlp-values.ts';
import { checkSpan } from './span-checks.ts';

export interface OtlpNormalizeResult {
  spans: Span[];
  /** Spans that are not agent, LLM or tool spans (plain HTTP, DB...): ignored, as docs/ingest.md#otlp-mapping says. */
  ignored: number;
  /** The ignored spans per project, for the log line that tells each project's users. */
  ignoredByProject: Map<string, number>;
  /** Agent or tool spans that cannot be stored, one line per problem; they go to partial_success. */
  rejected: OtlpRejection[];
}

export interface OtlpRejection {
  /** The span's id (hex), so a client can find it. */
  spanId: string;
  problems: string[];
}

export interface OtlpNormalizeOptions {
  /** ingest.otlp_keep_all_spans: keep the unselected spans of selected traces as generic spans. */
  keepAllSpans?: boolean;
}

/**
 * Maps decoded OTLP spans to Spyglass spans (docs/ingest.md#otlp-mapping). `keyProjectId` is the
 * project of a project-bound API key, which wins over the resource's `spyglass.project_id`.
 */
export function normalizeOtlp(
  req: DecodedExport,
  keyProjectId: string | null,
  defaultProject: string,
  opts: OtlpNormalizeOptions = {},
): OtlpNormalizeResult {
  const spans: Span[] = [];
  const rejected: OtlpRejection[] = [];
  let unselected: Unselected[] = [];
  const keep = (span: Span, spanId: string) => {
    const problems = checkSpan(span);
    if (problems.length === 0) spans.push(span);
    else rejected.push({ spanId, problems: problems.map((p) => `${p.field}: ${p.msg}`) });
  };
  const projectOf = (resource: Attrs) =>
    keyProjectId ?? text(resource[OWN.projectId]) ?? defaultProject;
  const agents = new ExportAgents();
  for (const rs of req.resourceSpans)
    for (const s of rs.spans) agents.add(projectOf(rs.resource), s);
  for (const rs of req.resourceSpans) {
    const service = text(rs.resource['service.name']);
    const projectId = projectOf(rs.resource);
    for (const s of rs.spans) {
      // Its attributes could not be read, so it cannot even be classified: rejected, not ignored.
      if (s.problem !== undefined) {
        rejected.push({ spanId: s.spanId, problems: [s.problem] });
        continue;
      }
      const kind = selectKind(s);
      if (kind === undefined) unselected.push({ span: s, projectId, service });
      else
        keep(
          toSpan(
            s,
            kind,
            {
              agent: agents.agentOf(projectId, s) ?? service,
              session: agents.sessionOf(projectId, s),
            },
            service,
            projectId,
          ),
          s.spanId,
        );
    }
  }
  if (opts.keepAllSpans && unselected.length > 0) {
    const { kept, left } = keepSelectedTraces(unselected, spans);
    for (const span of kept) keep(span, span.spanId);
    unselected = left;
  }
  const ignoredByProject = new Map<string, number>();
  for (const u of unselected)
    ignoredByProject.set(u.projectId, (ignoredByProject.get(u.projectId) ?? 0) + 1);
  return { spans, ignored: unselected.length, ignoredByProject, rejected };
}

/** `inherited`: the span's agent and session, its own or its nearest ancestor's (ExportAgents). */
function toSpan(
  s: DecodedSpan,
  kind: SpanType | null,
  inherited: { agent?: string; session?: string },
  service: string | undefined,
  projectId: string,
): Span {
  const a = s.attributes;
  const llmInput =
    first(a, ALIASES.llmInput, serialize) ?? flattenedMessages(a, FLATTENED_MESSAGES.llmInput);
  const llmOutput =
    first(a, ALIASES.llmOutput, serialize) ?? flattenedMessages(a, FLATTENED_MESSAGES.llmOutput);
  const spanType: SpanType =
    kind ?? (llmInput !== null || llmOutput !== null ? 'agent' : 'tool_call');
  let inputTokens = first(a, ALIASES.inputTokens, count);
  let outputTokens = first(a, ALIASES.outputTokens, count);
  // An embedding call reports only a total: all of it was input.
  if (inputTokens === null && outputTokens === null)
    inputTokens = first(a, ALIASES.totalTokens, count);
  // These conventions count cached prompt tokens inside the input and reasoning inside the output;
  // the span model counts them apart (as LangSight and Anthropic's API do), so each is priced once.
  const cacheReadTokens = first(a, CACHE_TOKEN_ALIASES.cacheReadTokens, count);
  const cacheCreationTokens = first(a, CACHE_TOKEN_ALIASES.cacheCreationTokens, count);
  const thinkingTokens = first(a, CACHE_TOKEN_ALIASES.thinkingTokens, count);
  if (inputTokens !== null)
    inputTokens = Math.max(0, inputTokens - (cacheReadTokens ?? 0) - (cacheCreationTokens ?? 0));
  if (outputTokens !== null) outputTokens = Math.max(0, outputTokens - (thinkingTokens ?? 0));
  const agentName = inherited.agent ?? null;
  const fromName = mcpNameParts(s.name);

  let serverName =
    first(a, ['mcp.server.name'], text) ?? fromName?.server ?? first(a, ALIASES.serverName, text);
  let toolName = first(a, ALIASES.toolName, text) ?? fromName?.tool;
  if (spanType === 'agent' && agentName) {
    // docs/ingest.md#otlp-mapping: an agent span's server_name is the agent and its tool_name the task.
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
    sessionId: inherited.session ?? null,
    projectId,
    spanType,
    serverName: serverName ?? service ?? 'unknown',
    toolName: toolName ?? s.name,
    agentName,
    status: timedOut ? 'timeout' : failed ? 'error' : 'success',
    error: errorText,
    startedAt: new Date(s.startTimeMs),
    startedAtMicros: subMs(s.startTimeMs),
    endedAt: new Date(Math.max(s.endTimeMs, s.startTimeMs)),
    endedAtMicros: subMs(Math.max(s.endTimeMs, s.startTimeMs)),
    latencyMs: Math.max(0, s.endTimeMs - s.startTimeMs),
    inputArgs: first(a, ALIASES.inputArgs, toArgs),
    outputResult: failed ? null : first(a, ALIASES.outputResult, serialize),
    llmInput,
    llmOutput,
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheCreationTokens,
    thinkingTokens,
    modelId: first(a, ALIASES.modelId, text),
    healthTag:
      healthTag && (HEALTH_TAGS as readonly string[]).includes(healthTag)
        ? (healthTag as HealthTag)
        : null,
    costUsd: null,
    costEstimated: null,
  };
}

/** `mcp.<server>.<tool>` → its parts; a tool name may itself contain dots. */
function mcpNameParts(name: string): { server: string; tool: string } | undefined {
  const m = /^mcp\.([^.]+)\.(.+)$/.exec(name);
  return m ? { server: m[1] as string, tool: m[2] as string } : undefined;
}

/** The microseconds past a time's millisecond, rounded (OTLP sends nanoseconds; a Date keeps whole ms). */
function subMs(ms: number): number {
  return Math.min(999, Math.round((ms - Math.floor(ms)) * 1000));
}
