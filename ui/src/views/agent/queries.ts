import { gql } from '@urql/core';

/** The agent's numbers, the servers it calls (lineage) and its most recent sessions. */
export const AGENT = gql`
  query AgentPage($name: String!, $projectId: String, $hours: Int, $first: Int!) {
    agents(projectId: $projectId) {
      name
      projectId
      description
      owner
      status
      runbookUrl
    }
    agentSessionStats(projectId: $projectId, agentName: $name, hours: $hours) {
      agentName
      sessions
      toolCalls
      failedCalls
      preventedCalls
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
        avgLatencyMs
      }
    }
    sessions(projectId: $projectId, agentName: $name, hours: $hours, first: $first) {
      totalCount
      edges {
        node {
          sessionId
          projectId
          firstCallAt
          durationMs
          toolCalls
          failedCalls
          healthTag
          estCostUsd
        }
      }
    }
  }
`;

export interface AgentSession {
  sessionId: string;
  projectId: string;
  firstCallAt: string;
  durationMs: number;
  toolCalls: number;
  failedCalls: number;
  healthTag: string;
  estCostUsd: number;
}

export interface AgentData {
  agents: {
    name: string;
    projectId: string;
    description: string | null;
    owner: string | null;
    status: string | null;
    runbookUrl: string | null;
  }[];
  agentSessionStats: {
    agentName: string;
    sessions: number;
    toolCalls: number;
    failedCalls: number;
    preventedCalls: number;
    estCostUsd: number;
    lastCallAt: string;
  }[];
  lineage: {
    edges: {
      source: string;
      target: string;
      type: string;
      calls: number;
      errors: number;
      avgLatencyMs: number;
    }[];
  };
  sessions: { totalCount: number; edges: { node: AgentSession }[] };
}

/** The config the agent's SDK gets: its override, else the project default, else the defaults. */
export const PREVENTION = gql`
  query AgentPrevention($name: String!, $projectId: String) {
    preventionConfig(agentName: $name, projectId: $projectId) {
      id
      projectId
      agentName
      source
      isAgentOverride
      updatedAt
      loopEnabled
      loopThreshold
      loopAction
      maxSteps
      maxCostUsd
      maxWallTimeS
      budgetSoftAlert
      cbEnabled
      cbFailureThreshold
      cbCooldownSeconds
      cbHalfOpenMaxCalls
    }
  }
`;

/** Stores the form as the agent's override (the whole config: omitted fields take defaults); the page reads it back. */
export const SET_PREVENTION = gql`
  mutation SetAgentPrevention($name: String!, $projectId: String, $input: PreventionConfigInput!) {
    setPreventionConfig(agentName: $name, projectId: $projectId, input: $input) {
      id
      source
    }
  }
`;

/** Removes the override: the agent goes back to the project default. */
export const DELETE_PREVENTION = gql`
  mutation DeleteAgentPrevention($name: String!, $projectId: String) {
    deletePreventionConfig(agentName: $name, projectId: $projectId) {
      source
    }
  }
`;

export interface PreventionValues {
  loopEnabled: boolean;
  loopThreshold: number;
  loopAction: string;
  maxSteps: number | null;
  maxCostUsd: number | null;
  maxWallTimeS: number | null;
  budgetSoftAlert: number | null;
  cbEnabled: boolean;
  cbFailureThreshold: number;
  cbCooldownSeconds: number;
  cbHalfOpenMaxCalls: number;
}

export interface PreventionConfig extends PreventionValues {
  id: string | null;
  projectId: string;
  agentName: string;
  /** agent (its override), project (the project default) or default (built-in). */
  source: 'agent' | 'project' | 'default';
  isAgentOverride: boolean;
  updatedAt: string | null;
}
