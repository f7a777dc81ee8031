import { gql } from '@urql/core';

/** Everything the overview's tiles show, in one round trip. */
export const OVERVIEW = gql`
  query Overview($projectId: String, $since: DateTime!, $spanFilter: SpanFilter!) {
    spans(first: 200, filter: $spanFilter) {
      edges {
        node {
          startedAt
          status
        }
      }
    }
    sessions(projectId: $projectId, since: $since, first: 50) {
      edges {
        node {
          sessionId
          healthTag
        }
      }
      pageInfo {
        hasNextPage
      }
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
  spans: { edges: { node: { startedAt: string; status: string } }[] };
  sessions: {
    edges: { node: { sessionId: string; healthTag: string } }[];
    pageInfo: { hasNextPage: boolean };
  };
  costBreakdown: { totalCostUsd: number; since: string };
  healthServers: { serverName: string; status: string; scorecard: { grade: string } | null }[];
  alertCounts: { firing: number; needsAttention: number };
  sloStatus: { sloId: string; agentName: string; metric: string; status: string }[];
}
