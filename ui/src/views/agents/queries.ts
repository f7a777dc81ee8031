import { gql } from '@urql/core';

/**
 * Everything the agent list needs in one request: the catalog (agents registered without spans
 * yet), the session rollups summed per agent, and the lineage graph for the servers each calls.
 */
export const AGENTS = gql`
  query AgentsList($projectId: String, $hours: Int) {
    agents(projectId: $projectId) {
      name
      projectId
      status
      owner
    }
    agentSessionStats(projectId: $projectId, hours: $hours) {
      agentName
      sessions
      toolCalls
      failedCalls
      estCostUsd
      lastCallAt
    }
    lineage(projectId: $projectId, hours: $hours) {
      edges {
        source
        target
        type
        calls
        errors
      }
    }
  }
`;

export interface AgentStats {
  agentName: string;
  sessions: number;
  toolCalls: number;
  failedCalls: number;
  estCostUsd: number;
  lastCallAt: string;
}

export interface LineageEdge {
  source: string;
  target: string;
  type: string;
  calls: number;
  errors: number;
}

export interface CatalogAgent {
  name: string;
  projectId: string;
  status: string | null;
  owner: string | null;
}

export interface AgentsData {
  agents: CatalogAgent[];
  agentSessionStats: AgentStats[];
  lineage: { edges: LineageEdge[] };
}
