import { gql } from '@urql/core';
import type { LineageInput } from '../../lib/lineage-layout.ts';

/** Agents, servers and handoffs of a time window (docs/ui.md#lineage). */
export const LINEAGE = gql`
  query Lineage($projectId: String, $hours: Int) {
    lineage(projectId: $projectId, hours: $hours) {
      nodes {
        id
        name
        type
        calls
        errors
      }
      edges {
        source
        target
        type
        calls
        errors
        avgLatencyMs
      }
    }
  }
`;

export interface LineageData {
  lineage: LineageInput;
}
