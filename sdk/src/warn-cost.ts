import { softAlertUsd } from './config.ts';
import type { Runtime } from './runtime.ts';
import type { Scope } from './scope.ts';
import type { HealthTag } from './tags.ts';

/**
 * Tells the developer when a call's cost crossed the soft alert (once per session: the guard tags
 * only that call) or reached max_cost_usd (the session is terminated; its next call will throw).
 */
export function warnCost(rt: Runtime, scope: Scope, tag: HealthTag | null): void {
  if (tag !== 'budget_warning' && tag !== 'budget_exceeded') return;
  const config = rt.config(scope.agentName);
  const details = {
    sessionId: scope.sessionId,
    agentName: scope.agentName,
    costUsd: scope.guard.costUsd,
    maxCostUsd: config.max_cost_usd,
    softAlertUsd: softAlertUsd(config),
  };
  if (tag === 'budget_warning')
    rt.opts.logger.warn(
      `Spyglass: session ${scope.sessionId} reached its soft budget alert (${scope.guard.costUsd.toFixed(4)} USD)`,
      details,
    );
  else
    rt.opts.logger.warn(
      `Spyglass: session ${scope.sessionId} reached max_cost_usd (${scope.guard.costUsd.toFixed(4)} USD); its next call will be refused`,
      details,
    );
}
