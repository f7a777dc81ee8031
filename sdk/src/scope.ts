/**
 * Where a call runs: the session (guard state, ids) and the span it hangs under. Carried by
 * AsyncLocalStorage so wrapped clients need no session argument; a handoff or graph node opens a
 * nested scope with its own parent span (and, for a handoff, the target agent's name and config).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SessionGuardApi } from './guards/types.ts';

export interface Scope {
  readonly sessionId: string;
  readonly traceId: string;
  readonly agentName: string;
  /** The span every span recorded in this scope hangs under (null: the implicit session's top level). */
  readonly spanId: string | null;
  readonly guard: SessionGuardApi;
}

export const scopes = new AsyncLocalStorage<Scope>();
