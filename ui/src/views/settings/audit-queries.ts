import { gql } from '@urql/core';

/** One page of the audit log, newest first, with the filters of the page's URL. */
export const AUDIT_LOG = gql`
  query AuditLog(
    $actor: String
    $action: String
    $target: String
    $result: String
    $since: DateTime
    $until: DateTime
    $first: Int!
    $after: String
  ) {
    auditLog(
      actor: $actor
      action: $action
      target: $target
      result: $result
      since: $since
      until: $until
      first: $first
      after: $after
    ) {
      edges {
        node {
          eventId
          timestamp
          actor
          action
          resource
          result
          projectId
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

export interface AuditItem {
  eventId: string;
  timestamp: string;
  actor: string;
  action: string;
  resource: string;
  result: string;
  projectId: string | null;
}

export interface AuditLogData {
  auditLog: {
    edges: { node: AuditItem }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}
