import { gql } from '@urql/core';

/** The projects the admin may see (all of them, or the one a project-bound key is bound to). */
export const SETTINGS_PROJECTS = gql`
  query SettingsProjects {
    projects {
      id
      name
      createdAt
      updatedAt
    }
  }
`;

export const CREATE_PROJECT = gql`
  mutation SettingsCreateProject($id: String, $name: String!) {
    createProject(id: $id, name: $name) {
      id
      name
    }
  }
`;

export const RENAME_PROJECT = gql`
  mutation SettingsRenameProject($id: String!, $name: String!) {
    updateProject(id: $id, name: $name) {
      id
      name
    }
  }
`;

export const DELETE_PROJECT = gql`
  mutation SettingsDeleteProject($id: String!) {
    deleteProject(id: $id)
  }
`;

export interface SettingsProject {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}
