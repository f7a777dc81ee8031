import { gql } from '@urql/core';

/** Who an outage of the server reaches: agents (blast radius) and sessions, and its tools to pick from. */
export const BLAST = gql`
  query ServerBlast($name: String!, $projectId: String, $hours: Int!) {
    blastRadius(name: $name, projectId: $projectId, hours: $hours) {
      serverStatus
      severity
      totalAgents
      totalSessions
      totalCalls
      affectedAgents {
        agentName
        callCount
        sessionCount
        errorCount
        errorRate
        avgLatencyMs
        lastCalledAt
      }
    }
    serverSessions(name: $name, projectId: $projectId, hours: $hours, limit: 50) {
      sessionId
      agentName
      callCount
      errorCount
      lastCalledAt
    }
    serverTools(name: $name, projectId: $projectId) {
      tools {
        name
      }
    }
  }
`;

/** Who a change of one tool reaches: its consumers and their sessions. */
export const TOOL_IMPACT = gql`
  query ToolImpact($name: String!, $projectId: String, $hours: Int!, $tool: String!) {
    driftImpact(name: $name, projectId: $projectId, hours: $hours, toolName: $tool) {
      totalSessions
      consumers {
        agentName
        sessionCount
        lastCalledAt
      }
    }
    serverSessions(name: $name, projectId: $projectId, hours: $hours, toolName: $tool, limit: 50) {
      sessionId
      agentName
      callCount
      errorCount
      lastCalledAt
    }
  }
`;

export interface SessionHit {
  sessionId: string;
  agentName: string | null;
  callCount: number;
  errorCount: number;
  lastCalledAt: string;
}

export interface BlastData {
  blastRadius: {
    serverStatus: string;
    severity: string;
    totalAgents: number;
    totalSessions: number;
    totalCalls: number;
    affectedAgents: {
      agentName: string | null;
      callCount: number;
      sessionCount: number;
      errorCount: number;
      errorRate: number;
      avgLatencyMs: number;
      lastCalledAt: string;
    }[];
  };
  serverSessions: SessionHit[];
  serverTools: { tools: { name: string }[] };
}

export interface ToolImpactData {
  driftImpact: {
    totalSessions: number;
    consumers: { agentName: string | null; sessionCount: number; lastCalledAt: string }[];
  };
  serverSessions: SessionHit[];
}
