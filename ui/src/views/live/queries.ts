import { gql } from '@urql/core';

/** The live tail: every span as it is stored (docs/ui.md#live). */
export const SPAN_NEW = gql`
  subscription LiveSpans($projectId: String) {
    spanNew(projectId: $projectId) {
      spanId
      parentSpanId
      sessionId
      agentName
      serverName
      toolName
      spanType
      status
      error
      latencyMs
      startedAt
    }
  }
`;

/**
 * The spans before the page opened, and what a reconnect missed (`since` the resume cursor). 100:
 * the query cost limit (5,000) allows about 100 rows of these fields.
 */
export const LIVE_BACKLOG = gql`
  query LiveBacklog($filter: SpanFilter!) {
    spans(first: 100, filter: $filter) {
      edges {
        node {
          spanId
          parentSpanId
          sessionId
          agentName
          serverName
          toolName
          spanType
          status
          error
          latencyMs
          startedAt
        }
      }
    }
  }
`;

export const STATUSES = ['success', 'error', 'timeout', 'prevented'] as const;

/** One span of the feed: SpanEvent and Span share these fields. */
export interface LiveRow {
  spanId: string;
  parentSpanId: string | null;
  sessionId: string | null;
  agentName: string | null;
  serverName: string;
  toolName: string;
  spanType: string;
  status: string;
  error: string | null;
  latencyMs: number;
  startedAt: string;
}

export interface LiveBacklogData {
  spans: { edges: { node: LiveRow }[] };
}
