import { gql } from '@urql/core';

/**
 * Every server of the project: the configured ones (spyglass.yaml and catalog entries with a
 * URL) with their latest health result and grade, and the catalog, which also holds the servers
 * only observed in spans. The page merges the two by name.
 */
export const SERVERS = gql`
  query ServersList($projectId: String) {
    healthServers(projectId: $projectId) {
      serverName
      projectId
      status
      latencyMs
      toolsCount
      checkedAt
      schemaDrift
      error
      transport
      scorecard {
        grade
        score
      }
    }
    servers(projectId: $projectId) {
      name
      projectId
      source
      transport
      scorecard {
        grade
        score
      }
    }
  }
`;

export interface HealthRow {
  serverName: string;
  projectId: string;
  status: string;
  latencyMs: number | null;
  toolsCount: number | null;
  checkedAt: string | null;
  schemaDrift: boolean;
  error: string | null;
  transport: string | null;
  scorecard: { grade: string; score: number } | null;
}

export interface ServersData {
  healthServers: HealthRow[];
  servers: {
    name: string;
    projectId: string;
    source: string;
    transport: string | null;
    scorecard: { grade: string; score: number } | null;
  }[];
}

/** Checks configured servers now (every one, or only serverName); admins only. */
export const RUN_CHECKS = gql`
  mutation RunHealthChecks($projectId: String, $serverName: String) {
    runHealthChecks(projectId: $projectId, serverName: $serverName) {
      serverName
      status
      checkedAt
      latencyMs
      error
    }
  }
`;

export interface RunChecksData {
  runHealthChecks: {
    serverName: string;
    status: string;
    checkedAt: string | null;
    latencyMs: number | null;
    error: string | null;
  }[];
}

/** Scans configured servers now (every one, or only serverName); admins only. */
export const RUN_SCAN = gql`
  mutation RunSecurityScan($projectId: String, $serverName: String) {
    runSecurityScan(projectId: $projectId, serverName: $serverName) {
      serverName
      findingsCount
      highestSeverity
      error
    }
  }
`;

export interface RunScanData {
  runSecurityScan: {
    serverName: string;
    findingsCount: number;
    highestSeverity: string;
    error: string | null;
  }[];
}
