import { gql } from '@urql/core';

/** Instance settings (docs/ingest.md#redaction). */
export const SETTINGS = gql`
  query InstanceSettings {
    settings {
      redactPayloads
    }
  }
`;

export const UPDATE_SETTINGS = gql`
  mutation UpdateInstanceSettings($redactPayloads: Boolean) {
    updateSettings(redactPayloads: $redactPayloads) {
      redactPayloads
    }
  }
`;

export interface SettingsData {
  settings: { redactPayloads: boolean };
}

/** The project default (no agentName): what every agent of the project gets without an override. */
export const PREVENTION_DEFAULT = gql`
  query PreventionDefault($projectId: String) {
    preventionConfig(projectId: $projectId) {
      projectId
      source
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

/** Replaces the project default with the form's values (omitted fields would take the defaults). */
export const SET_PREVENTION_DEFAULT = gql`
  mutation SetPreventionDefault($projectId: String, $input: PreventionConfigInput!) {
    setPreventionConfig(projectId: $projectId, input: $input) {
      projectId
      source
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

/** Removes the stored project default: the built-in defaults apply again. */
export const RESET_PREVENTION_DEFAULT = gql`
  mutation ResetPreventionDefault($projectId: String) {
    deletePreventionConfig(projectId: $projectId) {
      projectId
      source
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
  projectId: string;
  /** agent, project (the stored project default) or default (the built-in defaults). */
  source: string;
  updatedAt: string | null;
}
