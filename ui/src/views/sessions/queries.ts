import { gql } from '@urql/core';

/** One page of the session list with the total behind the filters ("N of M"). */
export const SESSIONS = gql`
  query Sessions(
    $projectId: String
    $agentName: String
    $healthTag: String
    $text: String
    $hours: Int
    $orderBy: SessionOrder
    $descending: Boolean
    $first: Int!
    $after: String
  ) {
    sessions(
      projectId: $projectId
      agentName: $agentName
      healthTag: $healthTag
      text: $text
      hours: $hours
      orderBy: $orderBy
      descending: $descending
      first: $first
      after: $after
    ) {
      totalCount
      edges {
        node {
          sessionId
          projectId
          agentName
          firstCallAt
          durationMs
          toolCalls
          failedCalls
          healthTag
          inputTokens
          outputTokens
          estCostUsd
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

export interface SessionItem {
  sessionId: string;
  projectId: string;
  agentName: string | null;
  firstCallAt: string;
  durationMs: number;
  toolCalls: number;
  failedCalls: number;
  healthTag: string;
  inputTokens: number;
  outputTokens: number;
  estCostUsd: number;
}

export interface SessionsData {
  sessions: {
    totalCount: number;
    edges: { node: SessionItem }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}
