import semver from 'semver';
import { canonicalJson, reduceTool } from '../../health/schema-hash.ts';
import type { Check, Finding, Severity } from '../types.ts';
import { scanPlace } from './findings.ts';
import { hashTool } from './pin.ts';
import { collectTool, type Place } from './strings.ts';
import { escapeHidden } from './text.ts';

/**
 * Rug pull (OWASP-MCP-03): a tool or the instructions differ from what was pinned on first use.
 * A change alone is medium; a change whose new text trips a poisoning rule the pinned text did not
 * is the attack itself and counts as confirmed poisoning. Identity drift (OWASP-MCP-09) is low.
 */
/** The rule ids this check reports (docs/security.md lists each). */
export const RUG_PULL_RULES = [
  'poisoning.rug-pull',
  'identity.name-changed',
  'identity.version-downgrade',
] as const;

const FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
const RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };
const REMEDIATION =
  'Compare the new definition with the pinned one; if the change is intended, re-pin the server, otherwise stop using it.';

export const rugPullCheck: Check = ({ observation: obs, pin }) => {
  if (!pin || !obs.reachable) return [];
  const out: Finding[] = [];
  for (const raw of obs.tools) {
    const name = String(raw.name);
    const pinned = pin.tools.get(name);
    if (!pinned || pinned.hash === hashTool(raw)) continue;
    const now = reduceTool(raw) as unknown as Record<string, unknown>;
    const was = pinned.definition as unknown as Record<string, unknown>;
    const changed = FIELDS.filter(
      (f) => canonicalJson(now[f] ?? null) !== canonicalJson(was[f] ?? null),
    );
    out.push(
      changeFinding(
        `tools.${name}`,
        name,
        `tool "${name}" changed its ${changed.join(', ') || 'definition'}`,
        newPoison(collectTool(was), collectTool(now)),
      ),
    );
  }
  if (
    pin.instructionsPinnedAt !== null &&
    (obs.instructions ?? null) !== (pin.instructions ?? null)
  ) {
    const place = (text: string | null): Place[] =>
      text
        ? [
            {
              location: 'instructions',
              text,
              field: 'text',
              toolName: null,
              group: 'instructions',
              param: false,
            },
          ]
        : [];
    out.push(
      changeFinding(
        'instructions',
        null,
        'the server instructions changed',
        newPoison(place(pin.instructions), place(obs.instructions)),
      ),
    );
  }
  out.push(...identity(pin.serverInfo, obs.serverInfo));
  return out;
};

/** Poisoning hits of the new text that the pinned text did not have: `rule@location`. */
function newPoison(before: Place[], after: Place[]): { rules: string[]; severity: Severity } {
  const old = new Set(before.flatMap((p) => scanPlace(p).map((h) => `${h.meta.id}@${p.location}`)));
  let severity: Severity = 'high';
  const rules: string[] = [];
  for (const p of after) {
    for (const h of scanPlace(p)) {
      if (h.meta.kind !== 'poisoning' || old.has(`${h.meta.id}@${p.location}`)) continue;
      rules.push(`${h.meta.id} at ${p.location}`);
      if (RANK[h.meta.severity] > RANK[severity]) severity = h.meta.severity;
    }
  }
  return { rules, severity };
}

function changeFinding(
  location: string,
  toolName: string | null,
  what: string,
  poison: { rules: string[]; severity: Severity },
): Finding {
  const escalated = poison.rules.length > 0;
  return {
    severity: escalated ? poison.severity : 'medium',
    category: 'OWASP-MCP-03',
    rule: 'poisoning.rug-pull',
    kind: escalated ? 'poisoning' : 'owasp',
    title: escalated
      ? 'Definition changed to poisoned text since it was pinned'
      : 'Definition changed since it was pinned',
    description: escapeHidden(
      `Since first use, ${what}.${escalated ? ` The new text trips ${poison.rules.join('; ')}.` : ''}`,
    ),
    remediation: REMEDIATION,
    toolName,
    location: escapeHidden(location),
    evidence: null,
  };
}

function identity(
  was: Record<string, unknown> | null,
  now: Record<string, unknown> | null,
): Finding[] {
  if (!was || !now) return [];
  const out: Finding[] = [];
  const base = {
    category: 'OWASP-MCP-09',
    kind: 'owasp' as const,
    severity: 'low' as const,
    toolName: null,
    location: 'serverInfo',
    remediation:
      'Check that the configured command still starts the server you approved; re-pin if the change is intended.',
  };
  if (typeof was.name === 'string' && typeof now.name === 'string' && was.name !== now.name) {
    out.push({
      ...base,
      rule: 'identity.name-changed',
      title: 'Server name changed since it was pinned',
      description: escapeHidden(
        `serverInfo.name was "${was.name}" when pinned and is now "${now.name}".`,
      ),
      evidence: escapeHidden(`${was.name} → ${now.name}`).slice(0, 200),
    });
  }
  const a = semver.coerce(typeof was.version === 'string' ? was.version : null);
  const b = semver.coerce(typeof now.version === 'string' ? now.version : null);
  if (a && b && semver.lt(b, a)) {
    out.push({
      ...base,
      rule: 'identity.version-downgrade',
      title: 'Server version went backwards since it was pinned',
      description: escapeHidden(
        `serverInfo.version was ${String(was.version)} when pinned and is now ${String(now.version)}.`,
      ),
      evidence: escapeHidden(`${String(was.version)} → ${String(now.version)}`).slice(0, 200),
    });
  }
  return out;
}
