import { gql } from '@urql/core';
import type { DiffTool } from '../../lib/schema-diff.ts';

/** One page of a server's drift events, each with its classified changes and both tool lists. */
export const DRIFT = gql`
  query ServerDrift($name: String!, $projectId: String, $first: Int!, $after: String) {
    driftHistoryConnection(name: $name, projectId: $projectId, first: $first, after: $after) {
      edges {
        node {
          id
          detectedAt
          classification
          observedBy
          agentName
          previousHash
          currentHash
          changes {
            changeType
            classification
            toolName
            paramName
            paramType
            detail
          }
          previousTools {
            name
            description
            inputSchema
          }
          currentTools {
            name
            description
            inputSchema
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

export interface DriftChangeItem {
  changeType: string;
  classification: string;
  toolName: string | null;
  paramName: string | null;
  paramType: string | null;
  detail: string | null;
}

export interface DriftEventItem {
  id: string;
  detectedAt: string;
  classification: string;
  observedBy: string;
  agentName: string | null;
  previousHash: string;
  currentHash: string;
  changes: DriftChangeItem[];
  previousTools: DiffTool[] | null;
  currentTools: DiffTool[] | null;
}

export interface DriftData {
  driftHistoryConnection: {
    edges: { node: DriftEventItem }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}
