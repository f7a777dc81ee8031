import { gql } from '@urql/core';
import type { CompareCall } from '../../lib/compare.ts';

/** Both sessions' rollups and spans in one round trip. */
export const COMPARE = gql`
  query Compare($a: String!, $b: String!, $projectId: String) {
    a: session(sessionId: $a, projectId: $projectId) {
      ...CompareSide
    }
    b: session(sessionId: $b, projectId: $projectId) {
      ...CompareSide
    }
  }

  fragment CompareSide on SessionDetail {
    truncated
    session {
      sessionId
      agentName
      firstCallAt
      durationMs
      healthTag
    }
    tree {
      span {
        spanId
        spanType
        agentName
        serverName
        toolName
        status
        error
        latencyMs
        startedAt
        inputTokens
        outputTokens
        costUsd
      }
    }
  }
`;

export interface CompareSpan extends CompareCall {
  startedAt: string;
  error: string | null;
}

export interface CompareSide {
  truncated: boolean;
  session: {
    sessionId: string;
    agentName: string | null;
    firstCallAt: string;
    durationMs: number;
    healthTag: string;
  };
  tree: { span: CompareSpan }[];
}

export interface CompareData {
  a: CompareSide;
  b: CompareSide;
}
