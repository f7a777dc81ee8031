import type { Finding, Severity } from '../types.ts';
import { maskSecrets, type Hit } from './patterns.ts';
import { RULES } from './rules.ts';
import { scanText } from './scan-text.ts';
import type { Place } from './strings.ts';
import { escapeHidden, excerpt } from './text.ts';

/** Known side channels (mcp-shield's list): a parameter the model fills with whatever it is told to. */
const EXFIL_PARAMS = new Set([
  'sidenote',
  'note',
  'notes',
  'feedback',
  'details',
  'extra',
  'additional',
  'additionalinfo',
  'metadata',
  'debug',
  'context',
  'annotation',
  'annotations',
  'reasoning',
  'remark',
  'remarks',
]);

const RANK: Record<Severity, number> = { critical: 4, high: 3, medium: 2, low: 1, info: 0 };
export const PER_GROUP = 10;
export const PER_SERVER = 200;

/** Every rule hit of one place. */
export function scanPlace(p: Place): readonly Hit[] {
  const found = scanText(p.text, p.field);
  if (p.param && EXFIL_PARAMS.has(p.text.toLowerCase().replace(/[_-]/g, '')))
    return [...found, { meta: RULES.exfilParam, index: 0, length: p.text.length }];
  return found;
}

export function toFinding(p: Place, h: Hit): Finding {
  const meta = h.meta;
  const source = h.source ?? p.text;
  let evidence = maskSecrets(excerpt(source, h.index, h.length));
  // A credential is shown only by its first characters.
  if (meta.id === RULES.secret.id)
    evidence = `${source.slice(h.index, h.index + 6)}… (${h.length} characters, masked)`;
  // Locations carry names, and a name can hide characters too.
  const where = escapeHidden(p.location);
  const note = h.note ? ` ${h.note.charAt(0).toUpperCase()}${h.note.slice(1)}.` : '';
  return {
    severity: meta.severity,
    category: meta.category,
    rule: meta.id,
    kind: meta.kind,
    title: meta.title,
    description: `Found in ${where}: ${meta.explain}${note}`,
    remediation: meta.remediation,
    toolName: p.toolName,
    location: where,
    evidence,
  };
}

/**
 * The findings of all places: one per rule per location, the most severe first, at most
 * PER_GROUP per tool/prompt/resource and PER_SERVER in all; what is left out is counted in one
 * `poisoning.capped` finding so a flood of matches cannot bury the rest of the scan.
 */
export function placesToFindings(places: readonly Place[]): Finding[] {
  const groups = new Map<string, Finding[]>();
  for (const p of places) {
    for (const h of scanPlace(p)) {
      const list = groups.get(p.group) ?? [];
      list.push(toFinding(p, h));
      groups.set(p.group, list);
    }
  }
  const kept: Finding[] = [];
  let dropped = 0;
  for (const list of groups.values()) {
    list.sort((a, b) => RANK[b.severity] - RANK[a.severity]);
    kept.push(...list.slice(0, PER_GROUP));
    dropped += Math.max(0, list.length - PER_GROUP);
  }
  kept.sort((a, b) => RANK[b.severity] - RANK[a.severity]);
  dropped += Math.max(0, kept.length - PER_SERVER);
  const out = kept.slice(0, PER_SERVER);
  if (dropped > 0) {
    out.push({
      ...capped(),
      description: `${dropped} further matches are not listed (at most ${PER_GROUP} per tool, prompt or resource and ${PER_SERVER} per server).`,
    });
  }
  return out;
}

function capped(): Finding {
  const m = RULES.capped;
  return {
    severity: m.severity,
    category: m.category,
    rule: m.id,
    kind: m.kind,
    title: m.title,
    description: '',
    remediation: m.remediation,
    toolName: null,
    location: null,
    evidence: null,
  };
}
