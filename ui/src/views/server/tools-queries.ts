import { gql } from '@urql/core';

/** The server's newest tool list with descriptions and schemas. */
export const TOOLS = gql`
  query ServerTools($name: String!, $projectId: String) {
    serverTools(name: $name, projectId: $projectId) {
      source
      schemaHash
      tools {
        name
        title
        description
        inputSchema
        outputSchema
        annotations
      }
    }
  }
`;

export interface ToolItem {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: unknown;
}

export interface ToolsData {
  serverTools: { source: string; schemaHash: string | null; tools: ToolItem[] };
}
