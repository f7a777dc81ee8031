import { gql } from '@urql/core';

/** The health tab's operations (the other tabs keep their own files). */

/** One server's checks, newest first, a page at a time (the charts and the table). */
export const HEALTH_HISTORY = gql`
  query ServerHealthHistory($name: String!, $projectId: String, $first: Int!, $after: String) {
    healthHistoryConnection(name: $name, projectId: $projectId, first: $first, after: $after) {
      edges {
        node {
          status
          checkedAt
          latencyMs
          toolsCount
          schemaDrift
          error
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

export interface HistoryData {
  healthHistoryConnection: {
    edges: { node: HealthPoint }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

export interface HealthPoint {
  status: string;
  checkedAt: string | null;
  latencyMs: number | null;
  toolsCount: number | null;
  schemaDrift: boolean;
  error: string | null;
}

export const SCORECARD = gql`
  query ServerScorecard($name: String!, $projectId: String) {
    scorecard(name: $name, projectId: $projectId) {
      grade
      score
      computedAt
      dimensions {
        name
        weight
        rawScore
        weightedScore
        notes
      }
      capApplied {
        reason
        maxGrade
        description
      }
    }
  }
`;

export interface ScorecardData {
  scorecard: {
    grade: string;
    score: number;
    computedAt: string;
    dimensions: {
      name: string;
      weight: number;
      rawScore: number;
      weightedScore: number;
      notes: string | null;
    }[];
    capApplied: { reason: string; maxGrade: string; description: string } | null;
  };
}

export const CATALOG_ENTRY = gql`
  query ServerCatalogEntry($name: String!, $projectId: String) {
    server(name: $name, projectId: $projectId) {
      name
      source
      description
      owner
      tags
      runbookUrl
      transport
      url
      updatedAt
    }
  }
`;

export interface CatalogEntry {
  name: string;
  source: string;
  description: string | null;
  owner: string | null;
  tags: string[];
  runbookUrl: string | null;
  transport: string | null;
  url: string | null;
  updatedAt: string;
}

export const PUT_SERVER = gql`
  mutation PutServer($name: String!, $projectId: String, $input: CatalogEntryInput!) {
    putServer(name: $name, projectId: $projectId, input: $input) {
      name
      source
      description
      owner
      tags
      runbookUrl
      transport
      url
      updatedAt
    }
  }
`;
