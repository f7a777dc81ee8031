import { gql } from '@urql/core';

/** Every SLO of the project evaluated now, with its definition (for editing). */
export const SLOS = gql`
  query SlosPage($projectId: String) {
    sloStatus(projectId: $projectId) {
      sloId
      agentName
      metric
      target
      currentValue
      windowHours
      status
      sampleSize
      evaluatedAt
      since
    }
    slos(projectId: $projectId) {
      sloId
      agentName
      metric
      threshold
      windowHours
      createdAt
      updatedAt
    }
  }
`;

export const CREATE_SLO = gql`
  mutation CreateSlo($input: SloInput!, $projectId: String) {
    createSlo(input: $input, projectId: $projectId) {
      sloId
    }
  }
`;

export const UPDATE_SLO = gql`
  mutation UpdateSlo($sloId: String!, $input: SloPatchInput!, $projectId: String) {
    updateSlo(sloId: $sloId, input: $input, projectId: $projectId) {
      sloId
    }
  }
`;

export const DELETE_SLO = gql`
  mutation DeleteSlo($sloId: String!, $projectId: String) {
    deleteSlo(sloId: $sloId, projectId: $projectId)
  }
`;

export interface SloStatusItem {
  sloId: string;
  agentName: string;
  metric: string;
  target: number;
  currentValue: number | null;
  windowHours: number;
  status: 'ok' | 'breached' | 'no_data';
  sampleSize: number;
  evaluatedAt: string;
  since: string | null;
}

export interface SloDefinition {
  sloId: string;
  agentName: string;
  metric: string;
  threshold: number;
  windowHours: number;
  createdAt: string;
  updatedAt: string;
}

export interface SlosData {
  sloStatus: SloStatusItem[];
  slos: SloDefinition[];
}

/** What the create and edit forms send (SloInput / SloPatchInput). */
export interface SloFields {
  agentName: string;
  metric: string;
  threshold: number;
  windowHours: number;
}
