/** The SDK's public option and session types (issue #11; names are part of the contract). */
import type { NestedPreventionConfig } from './config.ts';
import type { SharedBreakerRedis } from './shared-redis.ts';
import type { HealthTag } from './tags.ts';

/** USD per 1M tokens. */
export interface ModelPrice {
  inputPer1M: number;
  outputPer1M: number;
}

export interface PricingTable {
  /** By model id; merged over the shipped defaults. Longest `-`/`@` prefix wins, unknown → 10/30. */
  models?: Record<string, ModelPrice>;
  /** USD per call, by `server/tool`, then `server/*`, then `*` (tools are free unless listed). */
  tools?: Record<string, number>;
}

export interface GraphOptions {
  /** Executions allowed per node per session (default 10; 0 disables). */
  maxNodeIterations?: number;
  /** LLM cost allowed per session for graph agents, USD (default: no limit). */
  maxCostUsd?: number;
}

export interface SdkLogger {
  warn(message: string, details?: Record<string, unknown>): void;
  /** Good news after a warning (shared breakers back); absent: it goes to warn. */
  info?(message: string, details?: Record<string, unknown>): void;
}

/** Where circuit-breaker state is shared by every process of an agent (see docs/sdk.md). */
export type SharedBreakersOptions = ({ redisUrl: string } | { redis: SharedBreakerRedis }) & {
  /** First part of every key, `<keyPrefix>:cb:<agent>\0<server>` (default `spyglass`). */
  keyPrefix?: string;
  /** How long a call waits for Redis before using this process's own breaker (default 50 ms). */
  timeoutMs?: number;
};

export interface SpyglassOptions {
  /** Backend base URL; falls back to SPYGLASS_URL, then http://127.0.0.1:8000. */
  url?: string;
  /** Falls back to SPYGLASS_API_KEY. */
  apiKey?: string;
  /** Falls back to SPYGLASS_PROJECT_ID (a project-bound key needs none). */
  projectId?: string;
  /** The agent calls outside `session()` run as (default `agent`). */
  agentName?: string;
  /** Constructor defaults in the nested shape of spec §2.9; the backend's config wins when reachable. */
  prevention?: NestedPreventionConfig;
  pricing?: PricingTable;
  graph?: GraphOptions;
  /** How often buffered spans are sent (default 1000 ms). */
  flushIntervalMs?: number;
  /**
   * The longest flush() and shutdown() each wait for the backend (default 5000 ms). Past it they
   * resolve with the unsent spans still buffered (see stats()); shutdown() also cancels the request
   * in flight, so a backend that never answers cannot hold the agent's exit.
   */
  flushTimeoutMs?: number;
  /** Spans kept while the backend is away; the oldest are dropped beyond it (default 10,000). */
  maxBufferedSpans?: number;
  /** How often the backend config is re-read in the background (default 15,000 ms). */
  configRefreshMs?: number;
  /** Warnings (loop `warn`, dropped spans, backend unreachable); default: console.warn. */
  logger?: SdkLogger;
  /** Share breaker state per agent + server with the agent's other processes through Redis. */
  sharedBreakers?: SharedBreakersOptions;
  /** For tests: milliseconds since the epoch. */
  clock?: () => number;
}

export interface SessionOptions {
  agentName?: string;
  /** Defaults to a new UUID. */
  sessionId?: string;
}

export interface LlmCall {
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  prompt?: string;
  completion?: string;
}

export interface GuardCall {
  serverName: string;
  toolName: string;
  args?: Record<string, unknown>;
  /** This call's cost in USD, instead of the pricing table's tool price. */
  costUsd?: number;
}

export interface Session {
  readonly sessionId: string;
  readonly traceId: string;
  readonly agentName: string;
  /** This agent's span: the parent of every span recorded inside. */
  readonly spanId: string;
  /** The most severe guard tag so far (null: none). */
  readonly healthTag: HealthTag | null;
  readonly costUsd: number;
  readonly steps: number;
  /** Records an agent span with tokens; returns its cost, which counts toward the budget. */
  recordLlm(call: LlmCall): number;
  /** A handoff span `→ target` with the target agent's spans under it (same session and trace). */
  handoff<T>(targetAgent: string, fn: (child: Session) => Promise<T> | T): Promise<T>;
  /** One execution of a graph node, under the node iteration and graph cost limits. */
  node<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
}

export interface ExportStats {
  /** Spans waiting to be sent. */
  buffered: number;
  /** Spans accepted by the backend. */
  sent: number;
  /** Spans dropped because the buffer was full or the backend refused them for good. */
  dropped: number;
  /** Failed send attempts (each retried later). */
  failedAttempts: number;
}
