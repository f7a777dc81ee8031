import type { Check, Finding } from '../types.ts';
import { findingOf, nameWords, toolText, type Rule } from './rule.ts';

/**
 * OWASP-MCP-02 from tool names and annotations: what a tool may do to the world, and whether its
 * annotations tell the truth about it. Annotations are hints the server chooses (MCP spec), so
 * these are heuristics: a name is judged by its words (`delete_file`, `dropTable`, `files.remove`).
 */
const base = { category: 'OWASP-MCP-02', kind: 'owasp' } as const;
export const CAPABILITY_RULES = {
  destructiveOpenWorld: {
    ...base,
    id: 'capability.destructive-open-world',
    title: 'Destructive tool that reaches outside systems',
    remediation:
      'Require human confirmation for this tool in the client, or give the agent a server configured without it; scope its credentials to what the agent needs.',
  },
  contradiction: {
    ...base,
    id: 'capability.annotation-contradiction',
    title: 'Tool annotations contradict what the tool does',
    remediation:
      'Correct the annotations (readOnlyHint false, destructiveHint true) or rename the tool; clients auto-approve tools marked read-only.',
  },
  unannotated: {
    ...base,
    id: 'capability.unannotated-destructive',
    title: 'Destructive-looking tool without annotations',
    remediation:
      'Add annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) so clients can ask before running it.',
  },
} satisfies Record<string, Rule>;

/** Words that mean the tool removes or irreversibly changes something. */
const DESTRUCTIVE = new Set([
  'delete',
  'del',
  'remove',
  'rm',
  'drop',
  'destroy',
  'purge',
  'truncate',
  'wipe',
  'erase',
  'kill',
  'terminate',
  'overwrite',
  'reset',
  'revoke',
  'uninstall',
  'unlink',
  'rmdir',
  'exec',
  'execute',
  'shell',
  'bash',
  'eval',
]);
/** Words that mean the tool changes something (a read-only tool cannot have them). */
const MUTATING = new Set([
  ...DESTRUCTIVE,
  'write',
  'create',
  'update',
  'modify',
  'edit',
  'move',
  'rename',
  'set',
  'put',
  'insert',
  'upsert',
  'upload',
  'send',
  'post',
  'publish',
  'push',
  'deploy',
  'run',
  'install',
  'merge',
  'commit',
  'append',
  'patch',
  'replace',
  'save',
]);

interface Hints {
  readOnly?: boolean;
  destructive?: boolean;
  openWorld?: boolean;
  any: boolean;
}

function hintsOf(tool: Record<string, unknown>): Hints {
  const a = tool.annotations;
  if (!a || typeof a !== 'object') return { any: false };
  const r = a as Record<string, unknown>;
  const bool = (k: string) => (typeof r[k] === 'boolean' ? (r[k] as boolean) : undefined);
  const h: Hints = { any: false };
  const readOnly = bool('readOnlyHint');
  const destructive = bool('destructiveHint');
  const openWorld = bool('openWorldHint');
  if (readOnly !== undefined) h.readOnly = readOnly;
  if (destructive !== undefined) h.destructive = destructive;
  if (openWorld !== undefined) h.openWorld = openWorld;
  h.any = readOnly !== undefined || destructive !== undefined;
  return h;
}

export const capabilityCheck: Check = ({ observation }) => {
  const out: Finding[] = [];
  for (const tool of observation.tools) {
    const { name } = toolText(tool);
    const words = nameWords(name);
    const hints = hintsOf(tool);
    const mutating = words.find((w) => MUTATING.has(w));
    const destructive = words.find((w) => DESTRUCTIVE.has(w));
    if (hints.destructive === true && hints.openWorld === true && hints.readOnly !== true) {
      out.push(
        findingOf(CAPABILITY_RULES.destructiveOpenWorld, {
          severity: 'medium',
          toolName: name,
          location: `tools.${name}.annotations`,
          evidence: 'destructiveHint: true, openWorldHint: true',
          description: `Tool ${name} declares that it makes destructive changes and interacts with outside systems.`,
        }),
      );
    }
    if (hints.readOnly === true && (mutating || hints.destructive === true)) {
      const why = mutating
        ? `its name says "${mutating}"`
        : 'it also declares destructiveHint: true';
      out.push(
        findingOf(CAPABILITY_RULES.contradiction, {
          severity: 'medium',
          toolName: name,
          location: `tools.${name}.annotations`,
          evidence: 'readOnlyHint: true',
          description: `Tool ${name} is marked read-only, but ${why}.`,
        }),
      );
    } else if (destructive && !hints.any) {
      out.push(
        findingOf(CAPABILITY_RULES.unannotated, {
          severity: 'low',
          toolName: name,
          location: `tools.${name}`,
          evidence: name,
          description: `Tool ${name} looks destructive ("${destructive}") and declares no readOnlyHint or destructiveHint.`,
        }),
      );
    }
  }
  return out;
};
