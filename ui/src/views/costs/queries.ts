import { gql } from '@urql/core';

/** The breakdown and the per-hour series of one window or since/until range. */
export const COSTS = gql`
  query Costs($projectId: String, $window: String, $since: DateTime, $until: DateTime) {
    costBreakdown(projectId: $projectId, window: $window, since: $since, until: $until) {
      window
      since
      until
      totalCostUsd
      llmCostUsd
      toolCostUsd
      byModel {
        modelId
        calls
        inputTokens
        outputTokens
        costUsd
        estimated
      }
      byAgent {
        agentName
        llmCostUsd
        toolCostUsd
        costUsd
      }
      byTool {
        serverName
        toolName
        calls
        costUsd
      }
    }
    costSeries(projectId: $projectId, window: $window, since: $since, until: $until) {
      points {
        at
        llmCostUsd
        toolCostUsd
        costUsd
      }
    }
  }
`;

export interface ModelCost {
  modelId: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  estimated: boolean;
}
export interface AgentCost {
  agentName: string;
  llmCostUsd: number;
  toolCostUsd: number;
  costUsd: number;
}
export interface ToolCost {
  serverName: string;
  toolName: string;
  calls: number;
  costUsd: number;
}
export interface CostPoint {
  at: string;
  llmCostUsd: number;
  toolCostUsd: number;
  costUsd: number;
}
export interface CostsData {
  costBreakdown: {
    window: string;
    since: string;
    until: string;
    totalCostUsd: number;
    llmCostUsd: number;
    toolCostUsd: number;
    byModel: ModelCost[];
    byAgent: AgentCost[];
    byTool: ToolCost[];
  };
  costSeries: { points: CostPoint[] };
}

/** The price book: the record in effect now per model, or every dated record with history. */
export const PRICING = gql`
  query ModelPricing($projectId: String, $history: Boolean) {
    modelPricing(projectId: $projectId, history: $history) {
      edges {
        node {
          modelId
          provider
          inputPer1mUsd
          outputPer1mUsd
          cacheReadPer1mUsd
          cacheWritePer1mUsd
          effectiveFrom
          updatedAt
          source
        }
      }
    }
  }
`;

export interface Price {
  modelId: string;
  provider: string;
  inputPer1mUsd: number;
  outputPer1mUsd: number;
  cacheReadPer1mUsd: number | null;
  cacheWritePer1mUsd: number | null;
  effectiveFrom: string | null;
  updatedAt: string;
  source: 'default' | 'custom';
}
export interface PricingData {
  modelPricing: { edges: { node: Price }[] };
}

export interface PriceInput {
  provider?: string;
  inputPer1mUsd?: number;
  outputPer1mUsd?: number;
  cacheReadPer1mUsd?: number | null;
  cacheWritePer1mUsd?: number | null;
  effectiveFrom?: string;
}

export const ADD_PRICE = gql`
  mutation AddModelPricing($projectId: String, $modelId: String!, $input: ModelPricingInput!) {
    addModelPricing(projectId: $projectId, modelId: $modelId, input: $input) {
      modelId
      provider
      inputPer1mUsd
      outputPer1mUsd
      cacheReadPer1mUsd
      cacheWritePer1mUsd
      effectiveFrom
      updatedAt
      source
    }
  }
`;

export const UPDATE_PRICE = gql`
  mutation UpdateModelPricing($projectId: String, $modelId: String!, $input: ModelPricingInput!) {
    updateModelPricing(projectId: $projectId, modelId: $modelId, input: $input) {
      modelId
      provider
      inputPer1mUsd
      outputPer1mUsd
      cacheReadPer1mUsd
      cacheWritePer1mUsd
      effectiveFrom
      updatedAt
      source
    }
  }
`;

export const DELETE_PRICE = gql`
  mutation DeleteModelPricing($projectId: String, $modelId: String!) {
    deleteModelPricing(projectId: $projectId, modelId: $modelId)
  }
`;
