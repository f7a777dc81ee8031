import { findUnconfiguredServers } from '../store/shadow-repo.ts';
import { findingOf, type Rule } from './checks/rule.ts';
import type { ProjectCheck } from './types.ts';

/**
 * OWASP-MCP-09: agents of the project called tools on servers nobody configured or catalogued in
 * the last 7 days. "Known" = the configured servers (config file + catalog entries with a url)
 * plus catalog entries an operator created or edited through the API; servers that were only
 * auto-registered from spans are what this check exists to surface (see shadow-repo.ts).
 */
export const SHADOW_WINDOW_DAYS = 7;

export const SHADOW_RULE: Rule = {
  id: 'shadow.unconfigured',
  category: 'OWASP-MCP-09',
  kind: 'owasp',
  title: 'Agents use a server that is not configured',
  remediation:
    'Find out who runs this server; configure it in spyglass.yaml or the catalog (with a url) so it is health-checked and scanned, or remove it from the agents that call it.',
};

export const shadowServersCheck: ProjectCheck = async ({ db, projectId, configured, now }) => {
  const since = new Date(now.getTime() - SHADOW_WINDOW_DAYS * 24 * 60 * 60 * 1000);
  const found = await findUnconfiguredServers(db, projectId, configured, since, now);
  return found.map((s) => ({
    serverName: s.serverName,
    finding: findingOf(SHADOW_RULE, {
      severity: 'medium',
      location: 'spans',
      evidence: `${s.calls} tool calls, last seen ${s.lastSeen.toISOString()}`,
      description: `Agents made ${s.calls} tool call${s.calls === 1 ? '' : 's'} to server ${s.serverName} in the last ${SHADOW_WINDOW_DAYS} days (last seen ${s.lastSeen.toISOString()}); it is not configured, so it is never health-checked or scanned.`,
    }),
  }));
};
