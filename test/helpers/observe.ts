import { probeRequest } from '../../src/health/checker.ts';
import { probeServer } from '../../src/health/mcp-adapter.ts';
import type { CheckTarget } from '../../src/model/health.ts';
import type { GuardedFetch } from '../../src/net/guarded-fetch.ts';
import { toObservation } from '../../src/security/observe.ts';
import type { Observation } from '../../src/security/types.ts';

/** What a scan observes of a server (inventory, no probe tool), without storing anything: for check tests. */
export async function observe(
  target: CheckTarget,
  opts: { signal?: AbortSignal; guardedFetch?: GuardedFetch } = {},
): Promise<Observation> {
  const outcome = await probeServer({
    ...probeRequest(target),
    healthTool: undefined,
    healthToolArgs: undefined,
    signal: opts.signal,
    guardedFetch: opts.guardedFetch,
    inventory: true,
  });
  return toObservation(outcome, null);
}
