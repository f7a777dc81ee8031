/** `spyglass-agent-sdk`: guards and tracing for AI agents and the MCP tool servers they call. */
export { Spyglass } from './spyglass.ts';
export {
  PreventionError,
  LoopDetectedError,
  BudgetExceededError,
  CircuitBreakerOpenError,
  GraphLoopError,
} from './errors.ts';
export type { GuardName, PreventionDetails } from './errors.ts';
export { DEFAULT_PREVENTION } from './config.ts';
export type { PreventionConfig, NestedPreventionConfig, LoopAction } from './config.ts';
export { HEALTH_TAGS } from './tags.ts';
export type { HealthTag } from './tags.ts';
export type {
  SpyglassOptions,
  SessionOptions,
  Session,
  LlmCall,
  GuardCall,
  PricingTable,
  ModelPrice,
  GraphOptions,
  SdkLogger,
  ExportStats,
  SharedBreakersOptions,
} from './types.ts';
export type { SharedBreakerRedis } from './shared-redis.ts';
export type { McpToolClient, McpToolParams, WrapMcpOptions } from './wrap-mcp.ts';
