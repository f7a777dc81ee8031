import { gql } from '@urql/core';

/** Who is signed in (null when nobody is), and whether the server runs without keys. */
export const VIEWER = gql`
  query Viewer {
    viewer {
      role
      projectId
      actor
      authDisabled
      via
      user {
        id
        email
      }
    }
  }
`;

export const PROJECTS = gql`
  query ShellProjects {
    projects {
      id
      name
    }
  }
`;

export const LOGOUT = gql`
  mutation Logout {
    logout
  }
`;

export interface Viewer {
  role: 'admin' | 'viewer';
  projectId: string | null;
  actor: string;
  authDisabled: boolean;
  via: string;
  user: { id: string; email: string } | null;
}

/** What the command palette can jump to besides pages: agents, servers and firing alerts. */
export const PALETTE_TARGETS = gql`
  query PaletteTargets($projectId: String) {
    lineage(hours: 168, projectId: $projectId) {
      nodes {
        name
        type
      }
    }
    alerts(first: 20, status: "firing", projectId: $projectId) {
      edges {
        node {
          id
          message
        }
      }
    }
  }
`;

export interface PaletteTargets {
  lineage: { nodes: { name: string; type: string }[] };
  alerts: { edges: { node: { id: string; message: string } }[] };
}
