import { gql } from '@urql/core';

/** The server's newest security scans, the latest one's findings in full. */
export const SCANS = gql`
  query ServerScans($name: String!, $projectId: String) {
    securityScanHistory(name: $name, projectId: $projectId, limit: 10) {
      id
      scannedAt
      highestSeverity
      findingsCount
      criticalCount
      highCount
      error
      findings {
        rule
        category
        owaspTitle
        cveId
        severity
        title
        description
        evidence
        remediation
        toolName
        location
      }
    }
  }
`;

/** Scans this one server now (admins). */
export const RUN_SCAN = gql`
  mutation RunServerScan($name: String!, $projectId: String) {
    runSecurityScan(serverName: $name, projectId: $projectId) {
      id
      findingsCount
      highestSeverity
    }
  }
`;

export interface FindingItem {
  rule: string;
  category: string;
  owaspTitle: string | null;
  cveId: string | null;
  severity: string;
  title: string;
  description: string;
  evidence: string | null;
  remediation: string;
  toolName: string | null;
  location: string | null;
}

export interface ScanItem {
  id: string;
  scannedAt: string;
  highestSeverity: string;
  findingsCount: number;
  criticalCount: number;
  highCount: number;
  error: string | null;
  findings: FindingItem[];
}

export interface ScansData {
  securityScanHistory: ScanItem[];
}

export interface RunScanData {
  runSecurityScan: { id: string; findingsCount: number; highestSeverity: string }[];
}
