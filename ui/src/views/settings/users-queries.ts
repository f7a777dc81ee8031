import { gql } from '@urql/core';

/** Users of the instance (global admins); 50 a page (the query cost limit). */
export const SETTINGS_USERS = gql`
  query SettingsUsers($status: String, $after: String) {
    usersConnection(first: 50, after: $after, status: $status) {
      edges {
        node {
          id
          email
          role
          status
          createdAt
          lastLoginAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

export const INVITE_USER = gql`
  mutation SettingsInviteUser($email: String!, $role: String) {
    inviteUser(email: $email, role: $role) {
      inviteToken
      expiresAt
      user {
        id
        email
      }
    }
  }
`;

export const CHANGE_USER_ROLE = gql`
  mutation SettingsChangeUserRole($id: String!, $role: String!) {
    changeUserRole(id: $id, role: $role) {
      id
      role
    }
  }
`;

export const DEACTIVATE_USER = gql`
  mutation SettingsDeactivateUser($id: String!) {
    deactivateUser(id: $id) {
      id
      status
    }
  }
`;

export interface SettingsUser {
  id: string;
  email: string;
  role: string;
  status: string;
  createdAt: string;
  lastLoginAt: string | null;
}

export interface SettingsUsersData {
  usersConnection: {
    edges: { node: SettingsUser }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

export interface InviteData {
  inviteUser: { inviteToken: string; expiresAt: string; user: { id: string; email: string } };
}
