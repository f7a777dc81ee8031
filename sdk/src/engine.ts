/** The guard engine (sdk/src/guards/, pricing) as the runtime uses it: one place to import it from. */
export { SessionGuard } from './guards/session-guard.ts';
export { CircuitBreakers, halfOpenRefusal, openRefusal } from './guards/circuit-breakers.ts';
export type { Verdict } from './guards/types.ts';
export { llmCostUsd, toolCostUsd } from './pricing.ts';
