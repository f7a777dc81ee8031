import { gql } from '@urql/core';

/** Tools anomalous now (the detector's last evaluation), most severe first. */
export const ANOMALIES = gql`
  query AnomaliesPage($projectId: String, $serverName: String, $severity: String, $metric: String) {
    anomalies(
      projectId: $projectId
      serverName: $serverName
      severity: $severity
      metric: $metric
    ) {
      projectId
      serverName
      toolName
      metric
      zScore
      currentValue
      baselineValue
      baselineStddev
      sampleCount
      sampleHour
      severity
      detectedAt
      since
    }
  }
`;

/** The hourly values one anomaly is scored on: its baseline days and the current hour. */
export const ANOMALY_SERIES = gql`
  query AnomalySeries(
    $projectId: String
    $serverName: String!
    $toolName: String!
    $metric: String!
  ) {
    anomalySeries(
      projectId: $projectId
      serverName: $serverName
      toolName: $toolName
      metric: $metric
    ) {
      hour
      calls
      value
    }
  }
`;

export interface AnomalyItem {
  projectId: string;
  serverName: string;
  toolName: string;
  metric: 'error_rate' | 'latency_ms';
  zScore: number;
  currentValue: number;
  baselineValue: number;
  baselineStddev: number;
  sampleCount: number;
  sampleHour: string;
  severity: string;
  detectedAt: string;
  since: string | null;
}

export interface AnomaliesData {
  anomalies: AnomalyItem[];
}

export interface SeriesPoint {
  hour: string;
  calls: number;
  value: number;
}

export interface SeriesData {
  anomalySeries: SeriesPoint[];
}
