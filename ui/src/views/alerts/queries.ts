import { gql } from '@urql/core';

/** One page of the inbox, newest first; status '' is the server's active view. */
export const ALERTS = gql`
  query Alerts(
    $projectId: String
    $status: String
    $type: String
    $severity: String
    $first: Int
    $after: String
  ) {
    alerts(
      projectId: $projectId
      status: $status
      type: $type
      severity: $severity
      first: $first
      after: $after
    ) {
      edges {
        node {
          id
          type
          severity
          title
          message
          projectId
          serverName
          agentName
          sessionId
          status
          firedAt
          acknowledgedAt
          resolvedAt
          snoozedUntil
          fields
          delivery
          deliveryError
          source {
            kind
            sloId
            serverName
            toolName
            metric
            sessionId
            agentName
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

/** One alert by id: the detail of a shared link `/alerts?alert=<id>`. */
export const ALERT = gql`
  query Alert($id: String!, $projectId: String) {
    alert(id: $id, projectId: $projectId) {
      id
      type
      severity
      title
      message
      projectId
      serverName
      agentName
      sessionId
      status
      firedAt
      acknowledgedAt
      resolvedAt
      snoozedUntil
      fields
      delivery
      deliveryError
      source {
        kind
        sloId
        serverName
        toolName
        metric
        sessionId
        agentName
      }
    }
  }
`;

export const ACKNOWLEDGE = gql`
  mutation AcknowledgeAlert($id: String!, $projectId: String) {
    acknowledgeAlert(id: $id, projectId: $projectId) {
      id
      status
      acknowledgedAt
      resolvedAt
      snoozedUntil
    }
  }
`;

export const SNOOZE = gql`
  mutation SnoozeAlert($id: String!, $minutes: Int!, $projectId: String) {
    snoozeAlert(id: $id, minutes: $minutes, projectId: $projectId) {
      id
      status
      acknowledgedAt
      resolvedAt
      snoozedUntil
    }
  }
`;

export const RESOLVE = gql`
  mutation ResolveAlert($id: String!, $projectId: String) {
    resolveAlert(id: $id, projectId: $projectId) {
      id
      status
      acknowledgedAt
      resolvedAt
      snoozedUntil
    }
  }
`;

/** New alerts as they fire (the snake_case inbox record in `data`). */
export const ALERT_FIRED = gql`
  subscription AlertFired {
    alertFired {
      data
    }
  }
`;

export const ALERT_CONFIG = gql`
  query AlertConfig($projectId: String) {
    alertConfig(projectId: $projectId) {
      alertTypes
      chatWebhookConfigured
      chatWebhookSource
      chatWebhookMasked
    }
  }
`;

export const SAVE_ALERT_CONFIG = gql`
  mutation SaveAlertConfig($projectId: String, $alertTypes: JSON, $chatWebhook: String) {
    saveAlertConfig(projectId: $projectId, alertTypes: $alertTypes, chatWebhook: $chatWebhook) {
      alertTypes
      chatWebhookConfigured
      chatWebhookSource
      chatWebhookMasked
    }
  }
`;

export const TEST_WEBHOOK = gql`
  mutation TestAlertWebhook($projectId: String) {
    testAlertWebhook(projectId: $projectId) {
      ok
      error
    }
  }
`;

export interface AlertSource {
  kind: string;
  sloId: string | null;
  serverName: string | null;
  toolName: string | null;
  metric: string | null;
  sessionId: string | null;
  agentName: string | null;
}

export interface AlertItem {
  id: string;
  type: string;
  severity: string;
  title: string;
  message: string;
  projectId: string;
  serverName: string | null;
  agentName: string | null;
  sessionId: string | null;
  status: string;
  firedAt: string;
  acknowledgedAt: string | null;
  resolvedAt: string | null;
  snoozedUntil: string | null;
  fields: Record<string, string | number | boolean | null>;
  delivery: string;
  deliveryError: string | null;
  source: AlertSource | null;
}

export interface AlertsData {
  alerts: {
    edges: { node: AlertItem }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

export interface AlertConfigData {
  alertTypes: Record<string, boolean>;
  chatWebhookConfigured: boolean;
  chatWebhookSource: string | null;
  chatWebhookMasked: string | null;
}

/** What a move (acknowledge, snooze, resolve) returns: the fields it changes. */
export type AlertMove = Pick<
  AlertItem,
  'id' | 'status' | 'acknowledgedAt' | 'resolvedAt' | 'snoozedUntil'
>;
