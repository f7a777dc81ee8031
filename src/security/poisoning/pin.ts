import { createHash } from 'node:crypto';
import { canonicalJson, reduceTool } from '../../health/schema-hash.ts';
import type { Observation, Pin, PinnedTool } from '../types.ts';

/**
 * Trust on first use (docs/security.md#pinning-trust-on-first-use). The first scan pins the server's identity, its
 * instructions and every tool; a tool first seen later is pinned then; a pin never moves (only an
 * operator re-pins), so a definition that changes keeps being reported against what was approved.
 */
export function nextPin(pin: Pin | null, obs: Observation, now: Date): Pin {
  const next: Pin = pin
    ? {
        serverInfo: pin.serverInfo,
        instructions: pin.instructions,
        instructionsPinnedAt: pin.instructionsPinnedAt,
        tools: new Map(pin.tools),
      }
    : { serverInfo: null, instructions: null, instructionsPinnedAt: null, tools: new Map() };
  // An unreachable server showed nothing to trust.
  if (!obs.reachable) return next;
  if (next.serverInfo === null && obs.serverInfo !== null) next.serverInfo = obs.serverInfo;
  if (next.instructionsPinnedAt === null) {
    next.instructions = obs.instructions;
    next.instructionsPinnedAt = now;
  }
  for (const raw of obs.tools) {
    const name = String(raw.name);
    if (!next.tools.has(name)) next.tools.set(name, pinTool(raw, now));
  }
  return next;
}

/** One tool's pin: the hashed fields of docs/health.md#schema-hash-and-drift and the SHA-256 of their canonical JSON. */
export function pinTool(raw: Record<string, unknown>, now: Date): PinnedTool {
  const definition = reduceTool(raw);
  return { hash: hashTool(raw), definition, pinnedAt: now };
}

/** Per-tool hash: the same reduction and canonical JSON as the server's schema hash. */
export function hashTool(raw: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson(reduceTool(raw)))
    .digest('hex');
}
