/**
 * Synthetic span data for the read-path benchmark (bench/read-path.ts): ~24 h of multi-agent
 * sessions ending now, generated deterministically (seeded) and in bounded memory, and loaded
 * through the real ingest path (insertSpans), so the session, per-tool and lineage rollups are the
 * ones the server maintains.
 *
 * Shape: projects 'default' (~90 % of sessions) and 'acme' (~10 %); 20 agents; 50 MCP servers with
 * 3-6 tools each, every agent using 5-8 of them; sessions of 5-50 spans mostly (a few up to 150,
 * plus `treeSessions` sessions of exactly 200 spans): a root agent span, agent turns under it with
 * tool calls as children, ~15 % with a handoff to another agent; ~5 % of tool calls fail (4 % error,
 * 1 % timeout); 5 % of sessions carry no session id (keyed by trace id). Sessions overlap in time and
 * their spans arrive interleaved (sorted by start time within a window), as from a live system.
 */
import type { Span, SpanStatus } from '../src/model/span.ts';
import type { Db } from '../src/store/db.ts';
import { insertSpans } from '../src/store/spans-repo.ts';
import { mulberry32 } from '../test/helpers/seeded-random.ts';

export const PROJECTS = ['default', 'acme'] as const;

export const AGENTS = [
  'planner',
  'researcher',
  'coder',
  'reviewer',
  'tester',
  'writer',
  'summarizer',
  'router',
  'support',
  'billing',
  'triage',
  'analyst',
  'scheduler',
  'translator',
  'retriever',
  'critic',
  'deployer',
  'monitor',
  'negotiator',
  'concierge',
] as const;

const SERVER_BASES = [
  'filesystem',
  'github',
  'gitlab',
  'search',
  'browser',
  'postgres',
  'mysql',
  'redis',
  'slack',
  'email',
  'calendar',
  'jira',
  'linear',
  'notion',
  'confluence',
  'drive',
  'sheets',
  'stripe',
  'shopify',
  'salesforce',
  'hubspot',
  'zendesk',
  'twilio',
  'maps',
  'weather',
  'news',
  'wikipedia',
  'arxiv',
  'pdf',
  'ocr',
  'translate',
  'vector-db',
  'memory',
  'fetch',
  'shell',
  'docker',
  'kubernetes',
  'aws',
  'gcp',
  'azure',
  'sentry',
  'datadog',
  'pagerduty',
  'figma',
  'youtube',
  'spotify',
  'sqlite',
  'time',
  'everything',
  'sequential-thinking',
] as const;
const VERBS = [
  'get',
  'list',
  'search',
  'create',
  'update',
  'read',
  'write',
  'query',
  'run',
  'fetch',
] as const;
const MODELS = [
  'gpt-4o',
  'gpt-4o-mini',
  'claude-sonnet-4',
  'gemini-2.5-flash',
  'gpt-4.1-mini',
] as const;
const PRICES: Record<(typeof MODELS)[number], [number, number]> = {
  'gpt-4o': [2.5, 10],
  'gpt-4o-mini': [0.15, 0.6],
  'claude-sonnet-4': [3, 15],
  'gemini-2.5-flash': [0.3, 2.5],
  'gpt-4.1-mini': [0.4, 1.6],
};

export interface ServerDef {
  name: string;
  tools: string[];
}

export interface GenOptions {
  /** Exact number of spans produced. */
  spans: number;
  /** Sessions of exactly 200 spans (for the tree measurement), spread over the window. */
  treeSessions: number;
  /** The window's end (data covers [end - hours, end)). */
  end: Date;
  hours?: number;
  seed?: number;
  /** Spans per yielded group (insertSpans call). */
  groupSize?: number;
}

/** What the measurements need to know about the generated data (sampled, bounded). */
export interface DataInfo {
  spans: number;
  sessions: number;
  sessionsByProject: Record<string, number>;
  /** Session ids (project 'default') of the 200-span sessions. */
  treeSessionIds: string[];
  /** Trace ids of typical sessions (reservoir sample), with their span counts. */
  sampleTraces: { traceId: string; spans: number; projectId: string }[];
  agents: readonly string[];
  servers: number;
  tools: number;
}

interface SessionPlan {
  projectId: string;
  sessionId: string | null;
  traceId: string;
  agent: string;
  size: number;
  start: number;
}

/**
 * Yields groups of spans (about `groupSize` each, in start-time order within windows of overlapping
 * sessions); `info` is complete once the generator is exhausted.
 */
export function generateSpans(opts: GenOptions): { groups: Generator<Span[]>; info: DataInfo } {
  const rand = mulberry32(opts.seed ?? 42);
  const hours = opts.hours ?? 24;
  const groupSize = opts.groupSize ?? 5000;
  const endMs = opts.end.getTime();
  const startMs = endMs - hours * 3600_000;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const hex = (bytes: number) => {
    // Random ids (OTel style) from the seeded generator, so runs are reproducible.
    let s = '';
    for (let i = 0; i < bytes; i += 4)
      s += Math.floor(rand() * 4294967296)
        .toString(16)
        .padStart(8, '0');
    return s.slice(0, bytes * 2);
  };

  const servers: ServerDef[] = SERVER_BASES.map((name) => {
    const n = int(3, 6);
    const verbs = [...VERBS].sort(() => rand() - 0.5).slice(0, n);
    return { name, tools: verbs.map((v) => `${v}_${name.replace(/-/g, '_')}`) };
  });
  const agentServers = new Map<string, ServerDef[]>(
    AGENTS.map((a) => [a, [...servers].sort(() => rand() - 0.5).slice(0, int(5, 8))]),
  );
  // Agents are not equally busy: a few dominate, as in practice.
  const agentWeights = AGENTS.map((_, i) => 1 / (1 + i * 0.25));
  const weightSum = agentWeights.reduce((a, b) => a + b, 0);
  const pickAgent = () => {
    let r = rand() * weightSum;
    for (let i = 0; i < AGENTS.length; i++) {
      r -= agentWeights[i] as number;
      if (r <= 0) return AGENTS[i] as string;
    }
    return AGENTS[AGENTS.length - 1] as string;
  };
  const sessionSize = () => {
    const r = rand();
    if (r < 0.8) return int(5, 30);
    if (r < 0.97) return int(31, 80);
    return int(81, 150);
  };
  const MEAN_SIZE = 27;

  const info: DataInfo = {
    spans: 0,
    sessions: 0,
    sessionsByProject: {},
    treeSessionIds: [],
    sampleTraces: [],
    agents: AGENTS,
    servers: servers.length,
    tools: servers.reduce((n, s) => n + s.tools.length, 0),
  };
  const SAMPLE = 1000;
  let typicalSeen = 0;

  // A session of n spans lasts at most about n × 4 s, so it ends inside the window.
  const windowMs = hours * 3600_000;
  const expectedSessions = Math.max(1, Math.round(opts.spans / MEAN_SIZE));
  const treeEvery =
    opts.treeSessions > 0
      ? Math.max(1, Math.floor(expectedSessions / opts.treeSessions))
      : Infinity;
  let treeLeft = opts.treeSessions;

  function plan(index: number, remaining: number): SessionPlan {
    // Tree sessions every `treeEvery` sessions, or as soon as only enough spans for them remain.
    const isTree =
      treeLeft > 0 &&
      (index % treeEvery === Math.floor(treeEvery / 2) || remaining <= treeLeft * 200);
    let size = isTree ? 200 : sessionSize();
    if (isTree) treeLeft--;
    else {
      const reserve = treeLeft * 200;
      size = Math.min(size, remaining - reserve);
      // Never leave a tail too small to be a session of its own.
      if (remaining - reserve - size < 5) size = remaining - reserve;
    }
    const projectId = !isTree && rand() < 0.1 ? 'acme' : 'default';
    const traceId = hex(16);
    const sessionId = !isTree && rand() < 0.05 ? null : `sess-${hex(8)}`;
    // Start instants follow the span volume, so load is even across the window whatever the sizes.
    const at = startMs + ((opts.spans - remaining) / opts.spans) * windowMs + rand() * 60_000;
    const start = Math.max(startMs, Math.min(at, endMs - size * 4000 - 60_000));
    return { projectId, sessionId, traceId, agent: pickAgent(), size, start };
  }

  function build(p: SessionPlan): Span[] {
    const out: Span[] = [];
    let t = p.start;
    const model = pick(MODELS);
    const agentSpan = (agent: string, parent: string | null, description: string): Span => {
      const inputTokens = int(300, 6000);
      const outputTokens = int(50, 1500);
      const [pi, po] = PRICES[model];
      const s: Span = {
        projectId: p.projectId,
        traceId: p.traceId,
        sessionId: p.sessionId,
        spanId: hex(8),
        parentSpanId: parent,
        spanType: 'agent',
        serverName: agent,
        toolName: description,
        agentName: agent,
        status: 'success',
        error: null,
        startedAt: new Date(t),
        endedAt: new Date(t),
        latencyMs: 0,
        inputArgs: null,
        outputResult: null,
        llmInput: `You are ${agent}. Task: ${description}. Context: ${'lorem ipsum dolor sit amet '.repeat(int(2, 8))}`,
        llmOutput: `Plan: ${'call the tools in order and summarise '.repeat(int(1, 5))}`,
        inputTokens,
        outputTokens,
        modelId: model,
        healthTag: null,
        costUsd: (inputTokens * pi + outputTokens * po) / 1e6,
        costEstimated: false,
      };
      out.push(s);
      return s;
    };
    const toolCall = (agent: string, parent: string): Span => {
      const server = pick(agentServers.get(agent) as ServerDef[]);
      const tool = pick(server.tools);
      const r = rand();
      const status: SpanStatus = r < 0.04 ? 'error' : r < 0.05 ? 'timeout' : 'success';
      const latency = status === 'timeout' ? 30_000 : Math.round(5 + rand() * rand() * 2500);
      t += int(20, 400);
      const s: Span = {
        projectId: p.projectId,
        traceId: p.traceId,
        sessionId: p.sessionId,
        spanId: hex(8),
        parentSpanId: parent,
        spanType: 'tool_call',
        serverName: server.name,
        toolName: tool,
        agentName: agent,
        status,
        error:
          status === 'error'
            ? `${tool}: upstream returned 502`
            : status === 'timeout'
              ? 'timed out after 30000 ms'
              : null,
        startedAt: new Date(t),
        endedAt: new Date(t + latency),
        latencyMs: latency,
        inputArgs: {
          query: `q-${hex(4)}`,
          limit: int(1, 50),
          path: `/data/${agent}/${hex(3)}.json`,
        },
        outputResult:
          status === 'success'
            ? JSON.stringify({ ok: true, items: int(0, 20), text: 'result '.repeat(int(3, 30)) })
            : null,
        llmInput: null,
        llmOutput: null,
        inputTokens: null,
        outputTokens: null,
        modelId: null,
        healthTag: null,
        costUsd: null,
        costEstimated: null,
      };
      t += Math.min(latency, 3000);
      out.push(s);
      return s;
    };
    const close = (s: Span) => {
      s.endedAt = new Date(Math.max(t, s.startedAt.getTime() + 1));
      s.latencyMs = s.endedAt.getTime() - s.startedAt.getTime();
    };

    // root agent → turns (agent spans, each with 1-8 tool calls) [→ handoff → sub-agent → its turns]
    const root = agentSpan(p.agent, null, `handle request ${hex(2)}`);
    let left = p.size - 1;
    const handoff = left >= 6 && rand() < 0.15;
    const subBudget = handoff ? Math.max(2, Math.floor(left * (0.3 + rand() * 0.3))) : 0;
    const turns = (agent: string, parent: string, budget: number) => {
      while (budget > 0) {
        const turn = agentSpan(agent, parent, `turn ${hex(1)}`);
        budget--;
        const calls = Math.min(budget, int(1, 8));
        for (let i = 0; i < calls; i++) toolCall(agent, turn.spanId);
        budget -= calls;
        t += int(100, 1500);
        close(turn);
      }
    };
    turns(p.agent, root.spanId, left - subBudget);
    left = subBudget;
    if (handoff) {
      const target = AGENTS.filter((a) => a !== p.agent)[int(0, AGENTS.length - 2)] as string;
      const h = agentSpan(p.agent, root.spanId, `→ ${target}`);
      h.spanType = 'handoff';
      h.llmInput =
        h.llmOutput =
        h.modelId =
        h.inputTokens =
        h.outputTokens =
        h.costUsd =
        h.costEstimated =
          null;
      const sub = agentSpan(target, h.spanId, `delegated task ${hex(1)}`);
      turns(target, sub.spanId, left - 2);
      close(sub);
      close(h);
    }
    close(root);
    // Occasionally a span-level health tag from the detectors upstream.
    if (rand() < 0.01) root.healthTag = 'budget_warning';
    if (out.length !== p.size)
      throw new Error(`generator bug: planned ${p.size} spans, built ${out.length}`);
    return out;
  }

  function* groups(): Generator<Span[]> {
    const WINDOW_SESSIONS = 300;
    let remaining = opts.spans;
    let index = 0;
    let pending: Span[] = [];
    while (remaining > 0) {
      // A window of consecutive (overlapping) sessions, their spans interleaved by start time.
      const window: Span[] = [];
      for (let i = 0; i < WINDOW_SESSIONS && remaining > 0; i++, index++) {
        const p = plan(index, remaining);
        const spans = build(p);
        remaining -= spans.length;
        window.push(...spans);
        info.sessions++;
        info.sessionsByProject[p.projectId] = (info.sessionsByProject[p.projectId] ?? 0) + 1;
        if (p.size === 200 && p.sessionId) info.treeSessionIds.push(p.sessionId);
        else if (p.size >= 5 && p.size <= 50) {
          // reservoir sample of typical sessions' traces
          typicalSeen++;
          const entry = { traceId: p.traceId, spans: p.size, projectId: p.projectId };
          if (info.sampleTraces.length < SAMPLE) info.sampleTraces.push(entry);
          else {
            const j = Math.floor(rand() * typicalSeen);
            if (j < SAMPLE) info.sampleTraces[j] = entry;
          }
        }
      }
      window.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
      pending = pending.concat(window);
      while (pending.length >= groupSize || (remaining === 0 && pending.length > 0)) {
        const group = pending.slice(0, groupSize);
        pending = pending.slice(groupSize);
        info.spans += group.length;
        yield group;
      }
    }
  }

  return { groups: groups(), info };
}

/**
 * loadSpans into a running server's store, telling its statistics keeper what was written, as the
 * ingest writer does, so the keeper analyzes when it would in production.
 */
export function loadNoted(
  stats: { noteWritten(spans: number): void },
  db: Db,
  opts: GenOptions,
  signal?: AbortSignal,
  onProgress: (p: LoadProgress) => void = () => {},
): ReturnType<typeof loadSpans> {
  let noted = 0;
  return loadSpans(
    db,
    opts,
    (p) => {
      stats.noteWritten(p.spans - noted);
      noted = p.spans;
      onProgress(p);
    },
    signal,
  );
}

export interface LoadProgress {
  spans: number;
  elapsedMs: number;
}

/**
 * Loads the generated groups with insertSpans, one transaction per group, generating the next group
 * while the database works on the current one. Reports progress through `onProgress`.
 */
export async function loadSpans(
  db: Db,
  opts: GenOptions,
  onProgress: (p: LoadProgress) => void,
  signal?: AbortSignal,
): Promise<{ info: DataInfo; loadMs: number; insertMs: number }> {
  const { groups, info } = generateSpans(opts);
  const t0 = performance.now();
  let insertMs = 0;
  let loaded = 0;
  let inFlight: Promise<void> | null = null;
  try {
    for (const group of groups) {
      // Wait for the insert in flight before giving up, so no query outlives the load.
      if (inFlight) await inFlight;
      if (signal?.aborted) throw new Error('aborted');
      const started = performance.now();
      inFlight = insertSpans(db, group).then(() => {
        insertMs += performance.now() - started;
        loaded += group.length;
        onProgress({ spans: loaded, elapsedMs: performance.now() - t0 });
      });
    }
    if (inFlight) await inFlight;
  } catch (err) {
    await inFlight?.catch(() => undefined);
    throw err;
  }
  return { info, loadMs: performance.now() - t0, insertMs };
}
