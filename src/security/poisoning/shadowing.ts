import type { Check, Finding, FindingKind, Peer, Severity } from '../types.ts';
import { editDistance, mixedScript, skeleton } from './confusable.ts';
import { escapeHidden, excerpt } from './text.ts';

/**
 * Cross-server shadowing (OWASP-MCP-03): this server's tools set against the other configured
 * servers of the project. A tool that shares a name with a peer's tool, a name that looks like a
 * peer's, or a description that names a peer's tool or the peer itself can steer the model away
 * from the tool the user meant.
 */
const MIN_CONFUSABLE = 5;

/** The rule ids this check reports (docs/security.md lists each). */
export const SHADOWING_RULES = [
  'shadowing.collision',
  'shadowing.confusable',
  'shadowing.mixed-script',
  'shadowing.similar-name',
  'shadowing.cross-reference',
  'shadowing.server-reference',
] as const;
type ShadowingRule = (typeof SHADOWING_RULES)[number];

export const shadowingCheck: Check = ({ observation: obs, peers }) => {
  if (!obs.reachable) return [];
  const out: Finding[] = [];
  const own = new Set(obs.tools.map((t) => String(t.name)));
  for (const t of obs.tools) {
    const name = String(t.name);
    const script = mixedScript(name);
    if (script)
      out.push(
        finding(
          'shadowing.mixed-script',
          'high',
          'poisoning',
          name,
          `tools.${name}.name`,
          'Tool name mixes scripts',
          `The name "${name}" mixes Latin with ${script} letters, which look the same to a reader and a model.`,
          name,
        ),
      );
    for (const peer of peers) {
      for (const pt of peer.tools) out.push(...compareNames(name, pt.name, peer.name));
    }
    const description = typeof t.description === 'string' ? t.description : '';
    if (description)
      out.push(...references(description, `tools.${name}.description`, name, peers, own));
  }
  if (obs.instructions) out.push(...references(obs.instructions, 'instructions', null, peers, own));
  return out;
};

function compareNames(name: string, other: string, peer: string): Finding[] {
  const where = `tools.${name}.name`;
  if (name === other) {
    return [
      finding(
        'shadowing.collision',
        'medium',
        'owasp',
        name,
        where,
        'Tool name shared with another server',
        `Server "${peer}" also has a tool named "${name}"; a model given both may call the wrong one.`,
        name,
      ),
    ];
  }
  if (name.length < MIN_CONFUSABLE || other.length < MIN_CONFUSABLE) return [];
  if (skeleton(name) === skeleton(other)) {
    return [
      finding(
        'shadowing.confusable',
        'high',
        'poisoning',
        name,
        where,
        "Tool name imitates another server's tool",
        `"${name}" is drawn like "${other}" of server "${peer}" but uses look-alike letters.`,
        `${name} ~ ${other}`,
      ),
    ];
  }
  if (editDistance(name.toLowerCase(), other.toLowerCase(), 2) <= 2) {
    return [
      finding(
        'shadowing.similar-name',
        'low',
        'owasp',
        name,
        where,
        "Tool name close to another server's tool",
        `"${name}" is within two edits of "${other}" of server "${peer}".`,
        `${name} ~ ${other}`,
      ),
    ];
  }
  return [];
}

/** A peer's tool named in the text (identifier-like names only: "search" is also a word), or the peer itself. */
function references(
  text: string,
  location: string,
  toolName: string | null,
  peers: readonly Peer[],
  own: ReadonlySet<string>,
): Finding[] {
  const out: Finding[] = [];
  for (const peer of peers) {
    const tool = peer.tools.find(
      (pt) => identifierLike(pt.name) && !own.has(pt.name) && mentions(text, pt.name, false) >= 0,
    );
    if (tool) {
      const at = mentions(text, tool.name, false);
      out.push(
        finding(
          'shadowing.cross-reference',
          'high',
          'owasp',
          toolName,
          location,
          "Description names another server's tool",
          `The text names "${tool.name}", a tool of server "${peer.name}": a description that talks about other servers' tools can change how the model uses them.`,
          excerpt(text, at, tool.name.length),
        ),
      );
      continue;
    }
    const at = peer.name.length >= 4 ? mentions(text, peer.name, true) : -1;
    if (at >= 0)
      out.push(
        finding(
          'shadowing.server-reference',
          'medium',
          'owasp',
          toolName,
          location,
          'Description names another server',
          `The text names server "${peer.name}", another configured server.`,
          excerpt(text, at, peer.name.length),
        ),
      );
  }
  return out;
}

function identifierLike(name: string): boolean {
  return name.length >= 5 && /[_.-]|[a-z][A-Z]/.test(name);
}

/** Index of `word` in `text` as a whole token (not inside a longer identifier), or -1. */
function mentions(text: string, word: string, ignoreCase: boolean): number {
  const hay = ignoreCase ? text.toLowerCase() : text;
  const needle = ignoreCase ? word.toLowerCase() : word;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    const before = hay[i - 1] ?? ' ';
    const after = hay[i + needle.length] ?? ' ';
    if (!/[\w-]/.test(before) && !/[\w-]/.test(after)) return i;
  }
  return -1;
}

function finding(
  rule: ShadowingRule,
  severity: Severity,
  kind: FindingKind,
  toolName: string | null,
  location: string,
  title: string,
  description: string,
  evidence: string,
): Finding {
  return {
    severity,
    category: 'OWASP-MCP-03',
    rule,
    kind,
    title,
    description: escapeHidden(description),
    remediation:
      "Rename the tool or drop one of the servers from the project; keep descriptions about this server's own tools.",
    toolName,
    location: escapeHidden(location),
    evidence: escapeHidden(evidence).slice(0, 200),
  };
}
