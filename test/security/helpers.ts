import type { Services } from '../../src/services.ts';
import type { CheckRegistry } from '../../src/security/registry.ts';
import { ScanService } from '../../src/security/scan-service.ts';
import type { Check, Finding, Pin } from '../../src/security/types.ts';

/**
 * Test-only checks with findings a test can predict, for the tests of the service around the
 * checks (storage, API, pins, events). They run through the real service, store and adapters.
 */
export const toolDescriptionCheck: Check = function toolDescriptionCheck({ observation }) {
  return observation.tools.map((t): Finding => ({
    severity: 'high',
    category: 'OWASP-MCP-03',
    rule: 'test.tool-seen',
    kind: 'owasp',
    title: 'Tool seen by the scan',
    description: 'The test check reports every listed tool.',
    remediation: 'Nothing to do: this is a test rule.',
    toolName: String(t.name),
    location: `tools.${String(t.name)}.description`,
    evidence: typeof t.description === 'string' ? t.description.slice(0, 200) : null,
  }));
};

/** Works from the config alone, so it reports on servers that are down too. */
export const configCheck: Check = function configCheck({ target }) {
  return target.url?.startsWith('http://')
    ? [
        {
          severity: 'medium',
          category: 'OWASP-MCP-07',
          rule: 'test.plain-http',
          kind: 'owasp',
          title: 'Plain HTTP',
          description: `${target.name} is reached over http://`,
          remediation: 'Use https.',
          location: 'url',
          evidence: null,
        },
      ]
    : [];
};

/** Trust on first use, as the real nextPin will: what was pinned stays, new tools are added. */
export function firstSeenPin(
  pin: Pin | null,
  obs: {
    tools: Record<string, unknown>[];
    instructions: string | null;
    serverInfo: Record<string, unknown> | null;
  },
  now: Date,
): Pin {
  const next: Pin = pin
    ? { ...pin, tools: new Map(pin.tools) }
    : {
        serverInfo: obs.serverInfo,
        instructions: obs.instructions,
        instructionsPinnedAt: now,
        tools: new Map(),
      };
  for (const t of obs.tools) {
    const name = String(t.name);
    if (!next.tools.has(name))
      next.tools.set(name, {
        hash: `hash-of-${name}`,
        definition: { name, description: t.description },
        pinnedAt: now,
      });
  }
  return next;
}

/** Replaces the server's scan service with one running `registry` (the adapters read services.security per request). */
export function useRegistry(s: Services, registry: CheckRegistry): void {
  s.security = new ScanService({
    config: s.config,
    db: s.store.db,
    bus: s.bus,
    logger: s.logger,
    health: s.health,
    registry,
  });
}
