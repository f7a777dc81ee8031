import { gql } from '@urql/core';

/** Everything the overview's tiles show but the sparklines, in one round trip. */
export const OVERVIEW = gql`
  query Overview($projectId: String) {
    sessionHealthCounts(projectId: $projectId, hours: 24) {
      healthTag
      sessions
    }
    costBreakdown(projectId: $projectId, window: "24h") {
      totalCostUsd
      since
    }
    healthServers(projectId: $projectId) {
      serverName
      status
      scorecard {
        grade
      }
    }
    alertCounts(projectId: $projectId) {
      firing
      needsAttention
    }
    sloStatus(projectId: $projectId) {
      sloId
      agentName
      metric
      status
    }
  }
`;

export interface OverviewData {
  sessionHealthCounts: { healthTag: string; sessions: number }[];
  costBreakdown: { totalCostUsd: number; since: string };
  healthServers: { serverName: string; status: string; scorecard: { grade: string } | null }[];
  alertCounts: { firing: number; needsAttention: number };
  sloStatus: { sloId: string; agentName: string; metric: string; status: string }[];
}

/** The sparklines' series, counted by the server; spanNew bumps it between polls. */
export const SPANS_PER_MINUTE = gql`
  query OverviewSpansPerMinute($projectId: String, $minutes: Int) {
    spansPerMinute(projectId: $projectId, minutes: $minutes) {
      minute
      spans
      errors
    }
  }
`;

export interface MinuteCount {
  minute: string;
  spans: number;
  errors: number;
}

/** New spans as they are stored: only what the sparklines count. */
export const OVERVIEW_SPAN_NEW = gql`
  subscription OverviewSpanNew($projectId: String) {
    spanNew(projectId: $projectId) {
      startedAt
      status
    }
  }
`;
