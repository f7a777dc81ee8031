import { gql } from '@urql/core';

/** API keys newest first (a project-bound admin sees its project's only), and the projects to bind one to. */
export const SETTINGS_KEYS = gql`
  query SettingsKeys($includeRevoked: Boolean, $after: String) {
    apiKeysConnection(first: 50, after: $after, includeRevoked: $includeRevoked) {
      edges {
        node {
          id
          name
          prefix
          role
          projectId
          createdAt
          expiresAt
          revokedAt
          lastUsedAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
    projects {
      id
      name
    }
  }
`;

export const CREATE_API_KEY = gql`
  mutation SettingsCreateApiKey($input: ApiKeyInput!) {
    createApiKey(input: $input) {
      key
      apiKey {
        id
        name
        prefix
      }
    }
  }
`;

export const REVOKE_API_KEY = gql`
  mutation SettingsRevokeApiKey($id: String!) {
    revokeApiKey(id: $id) {
      id
      revokedAt
    }
  }
`;

export interface SettingsKey {
  id: string;
  name: string;
  prefix: string;
  role: string;
  projectId: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface SettingsKeysData {
  apiKeysConnection: {
    edges: { node: SettingsKey }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
  projects: { id: string; name: string }[];
}

export interface CreatedKeyData {
  createApiKey: { key: string; apiKey: { id: string; name: string; prefix: string } };
}
