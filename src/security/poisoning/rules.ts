import type { FindingKind, Severity } from '../types.ts';

/**
 * The rule catalogue of the poisoning scan (docs/security.md#rules). Each rule has a stable id that
 * docs/security.md and SARIF list, one category, a default severity and what the scorecard counts
 * it as: `poisoning` (confirmed tool poisoning) only where a match is hard to explain innocently.
 */
export interface RuleMeta {
  id: string;
  category: string;
  severity: Severity;
  kind: FindingKind;
  title: string;
  /** One sentence that completes "Found in <location>: ...". */
  explain: string;
  remediation: string;
}

const REVIEW =
  'Review the server before trusting it again: remove or re-pin it only once the text is explained by its author.';

function rule(
  id: string,
  severity: Severity,
  kind: FindingKind,
  title: string,
  explain: string,
  remediation = REVIEW,
  category = 'OWASP-MCP-03',
): RuleMeta {
  return { id, category, severity, kind, title, explain, remediation };
}

export const RULES = {
  instructionTag: rule(
    'poisoning.instruction-tag',
    'high',
    'poisoning',
    'Instruction tag in tool metadata',
    'a tag such as <IMPORTANT> or <system> that addresses the model, not the reader.',
  ),
  hiddenMarker: rule(
    'poisoning.hidden-marker',
    'high',
    'poisoning',
    'Hidden instruction marker in tool metadata',
    'an HTML comment or bracket marker carrying instructions that a rendered view hides.',
  ),
  override: rule(
    'poisoning.override',
    'critical',
    'poisoning',
    'Instruction override in tool metadata',
    'wording that tells the model to ignore or replace its instructions.',
  ),
  concealment: rule(
    'poisoning.concealment',
    'critical',
    'poisoning',
    'Concealment from the user in tool metadata',
    'wording that tells the model to keep something from the user.',
  ),
  coercion: rule(
    'poisoning.coercion',
    'high',
    'poisoning',
    'Coercive precedence in tool metadata',
    'wording that forces this tool to be used first or before any other tool.',
  ),
  shadowing: rule(
    'poisoning.shadowing',
    'high',
    'poisoning',
    'Cross-tool shadowing wording in tool metadata',
    'wording that changes how other tools behave or when they are used.',
  ),
  sensitivePath: rule(
    'poisoning.sensitive-path',
    'high',
    'poisoning',
    'Sensitive file path in tool metadata',
    'a credential or configuration path (SSH keys, cloud credentials, MCP client config), with wording that asks to read, pass or send it.',
  ),
  sensitivePathMention: rule(
    'poisoning.sensitive-path-mention',
    'medium',
    'owasp',
    'Sensitive file path mentioned in tool metadata',
    'a credential or configuration path mentioned without an instruction around it.',
    'Check why the tool mentions this path; tools rarely need to.',
  ),
  exfilParam: rule(
    'poisoning.exfil-param',
    'low',
    'owasp',
    'Possible side-channel parameter',
    'an input parameter whose name (sidenote, notes, feedback, context...) is a known channel for smuggling data out.',
    'Check what the parameter is for; give it a specific name and description, or remove it.',
  ),
  exfil: rule(
    'poisoning.exfil',
    'critical',
    'poisoning',
    'Data exfiltration wording in tool metadata',
    'wording that sends data covertly, asks for the conversation history or system prompt, or points at a beacon or attacker URL.',
  ),
  exfilUrl: rule(
    'poisoning.exfil-url',
    'medium',
    'owasp',
    'Send-to-URL wording in tool metadata',
    'wording that sends or uploads something to an external URL or address.',
    'Check that the destination is the service the tool is documented to call.',
  ),
  trigger: rule(
    'poisoning.trigger',
    'high',
    'poisoning',
    'Trigger phrase in tool metadata',
    'an action bound to a literal phrase the user may say.',
  ),
  hiddenBehaviour: rule(
    'poisoning.hidden-behaviour',
    'high',
    'poisoning',
    'Undisclosed behaviour in tool metadata',
    'wording that describes something the tool secretly or additionally does with sensitive data.',
  ),
  unicodeTags: rule(
    'poisoning.unicode-tags',
    'critical',
    'poisoning',
    'Unicode tag characters in tool metadata',
    'invisible Unicode tag characters (U+E0000–E007F) that spell hidden text for the model.',
  ),
  bidi: rule(
    'poisoning.bidi',
    'high',
    'poisoning',
    'Bidirectional control characters in tool metadata',
    'bidi embedding, override or isolate characters that make the shown text differ from what the model reads.',
  ),
  invisible: rule(
    'poisoning.invisible-unicode',
    'medium',
    'owasp',
    'Invisible characters in tool metadata',
    'zero-width, joiner, filler or variation-selector characters outside emoji.',
    'Remove the invisible characters; ask the author why they are there.',
  ),
  ansi: rule(
    'poisoning.ansi',
    'high',
    'poisoning',
    'Terminal escape sequence in tool metadata',
    'an ANSI/VT escape sequence that can hide or rewrite text in a terminal.',
  ),
  nul: rule(
    'poisoning.nul',
    'high',
    'poisoning',
    'NUL character in tool metadata',
    'a NUL (U+0000): C-based tools, logs and databases cut or refuse text there, so what a reviewer is shown differs from what the model reads.',
  ),
  control: rule(
    'poisoning.control-chars',
    'medium',
    'owasp',
    'Control characters in tool metadata',
    'C0/C1 control characters other than tab and newline.',
    'Remove the control characters.',
  ),
  padding: rule(
    'poisoning.padding',
    'medium',
    'owasp',
    'Whitespace padding in tool metadata',
    'a run of 50 or more spaces/tabs or 8 or more newlines, which pushes text out of view.',
    'Check what follows the padding; remove it.',
  ),
  longText: rule(
    'poisoning.long-text',
    'low',
    'owasp',
    'Very long text in tool metadata',
    'more than 8 KB of text, far beyond what a description needs and room to hide instructions.',
    'Check the whole text; shorten it.',
  ),
  encoded: rule(
    'poisoning.encoded',
    'critical',
    'poisoning',
    'Encoded instructions in tool metadata',
    'a base64 or hex blob whose decoded text trips a poisoning rule.',
  ),
  encodedText: rule(
    'poisoning.encoded-text',
    'medium',
    'owasp',
    'Encoded text in tool metadata',
    'a base64 or hex blob that decodes to readable text, or wording that asks to decode one.',
    'Check what the decoded text says and why it is encoded.',
  ),
  secret: rule(
    'secrets.metadata',
    'high',
    'owasp',
    'Credential literal in tool metadata',
    'a literal that looks like a credential (cloud key, token, private key).',
    'Revoke the credential and remove it from the tool definition.',
    'OWASP-MCP-01',
  ),
  capped: rule(
    'poisoning.capped',
    'info',
    'other',
    'More poisoning matches not listed',
    'more matches than are listed (at most 10 per tool, prompt or resource and 200 per server).',
    'Fix the listed findings first, then scan again.',
  ),
} satisfies Record<string, RuleMeta>;

export type RuleKey = keyof typeof RULES;
