import { gql } from '@urql/core';

/** The span fields the tree, the waterfall, the search and the lineage graph read (no payloads). */
export interface TreeSpanData {
  spanId: string;
  parentSpanId: string | null;
  startedAt: string;
  endedAt: string;
  latencyMs: number;
  status: string;
  spanType: string;
  toolName: string;
  serverName: string;
  agentName: string | null;
  targetAgentName: string | null;
  error: string | null;
  healthTag: string | null;
}

export interface SessionData {
  session: {
    truncated: boolean;
    session: {
      sessionId: string;
      agentName: string | null;
      healthTag: string;
      spanCount: number;
      toolCalls: number;
      failedCalls: number;
      preventedCalls: number;
      durationMs: number;
      estCostUsd: number;
      inputTokens: number;
      outputTokens: number;
      firstCallAt: string;
      lastCallAt: string;
    };
    tree: { span: TreeSpanData }[];
  };
}

/** The session's rollup and every span of its tree (up to the server's cap, then `truncated`). */
export const SESSION = gql`
  query Session($projectId: String, $sessionId: String!) {
    session(projectId: $projectId, sessionId: $sessionId) {
      truncated
      session {
        sessionId
        agentName
        healthTag
        spanCount
        toolCalls
        failedCalls
        preventedCalls
        durationMs
        estCostUsd
        inputTokens
        outputTokens
        firstCallAt
        lastCallAt
      }
      tree {
        span {
          spanId
          parentSpanId
          startedAt
          endedAt
          latencyMs
          status
          spanType
          toolName
          serverName
          agentName
          targetAgentName
          error
          healthTag
        }
      }
    }
  }
`;

export interface SpanDetailData {
  span: TreeSpanData & {
    traceId: string | null;
    modelId: string | null;
    inputTokens: number | null;
    outputTokens: number | null;
    finishReason: string | null;
    inputArgs: unknown;
    outputResult: string | null;
    llmInput: string | null;
    llmOutput: string | null;
  };
}

/** One span with its payloads, loaded when it is selected. */
export const SPAN = gql`
  query SessionSpan($projectId: String, $spanId: String!) {
    span(projectId: $projectId, spanId: $spanId) {
      spanId
      parentSpanId
      traceId
      startedAt
      endedAt
      latencyMs
      status
      spanType
      toolName
      serverName
      agentName
      targetAgentName
      error
      healthTag
      modelId
      inputTokens
      outputTokens
      finishReason
      inputArgs
      outputResult
      llmInput
      llmOutput
    }
  }
`;

/** New spans of this session while it runs: the page refetches the tree when one arrives. */
export const SESSION_SPAN_NEW = gql`
  subscription SessionSpanNew($projectId: String, $sessionId: String) {
    spanNew(projectId: $projectId, sessionId: $sessionId) {
      spanId
      sessionId
    }
  }
`;
