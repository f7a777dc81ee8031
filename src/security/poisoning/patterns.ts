import { SECRET_LITERALS } from '../checks/secret-patterns.ts';
import { RULES, type RuleMeta } from './rules.ts';

/**
 * The wording rules, matched on the visible text (hidden characters removed). Every gap is bounded
 * (`[^\n]{0,80}?`, `\w{1,20}`) and no pattern starts with an unbounded class, so a 100 KB string
 * costs a linear pass per pattern: no catastrophic backtracking.
 */
export interface Hit {
  meta: RuleMeta;
  index: number;
  length: number;
  /** What the location reads once decoded (tag characters, base64), shown instead of the raw match. */
  note?: string;
  /** The text `index` points into when it is not the raw string (the visible or decoded text). */
  source?: string;
}

interface PatternRule {
  meta: RuleMeta;
  patterns: RegExp[];
  /** Picks the rule that applies to this match (a mention vs an instruction), or null to drop it. */
  refine?: (text: string, match: RegExpExecArray) => RuleMeta | null;
}

const VERB_SEND = String.raw`(?:send|upload|post|forward|transmit|exfiltrate|email|submit|leak|share|copy)`;
const SENSITIVE_ACTION =
  /\b(?:read|cat|open|load|send|pass|include|upload|attach|copy|provide|forward|post|contents?\s+of|as\s+(?:the\s+)?(?:sidenote|note|context|argument|parameter))\b/i;

/** The excerpt with every credential literal (checks/secret-patterns.ts) cut to its first six characters. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const re of SECRET_LITERALS) out = out.replace(re, (m) => `${m.slice(0, 6)}…`);
  return out;
}

const ruleList: PatternRule[] = [
  {
    meta: RULES.instructionTag,
    patterns: [
      /<\s{0,3}\/?\s{0,3}(?:important|system|instructions?|secret|critical|urgent|hidden|admin|sys|s)(?:\s[^<>\n]{0,40})?\s{0,3}>/gi,
    ],
  },
  {
    meta: RULES.hiddenMarker,
    patterns: [
      /\[{1,3}\s{0,3}(?:system|hidden|admin|secret|developer)\s{1,3}(?:override|instructions?|prompt|message|note|command)\s{0,3}\]{1,3}/gi,
      /\[\/?INST\]|<\|im_start\|>|<<\/?SYS>>/g,
      /```[ \t]{0,8}(?:system|instructions?|override|hidden)\b/gi,
      /<!--[^]{0,500}?-->/g,
    ],
    // An HTML comment is only a marker when it talks to the model.
    refine: (_t, m) =>
      m[0].startsWith('<!--') &&
      !/\b(?:system|instruction|override|ignore|assistant|model|must|always|never|do not|don't|secret|hidden|read|send|call)\b/i.test(
        m[0],
      )
        ? null
        : RULES.hiddenMarker,
  },
  {
    meta: RULES.override,
    patterns: [
      /\b(?:ignore|disregard|forget|override|bypass)\s{1,3}(?:all\s{1,3}|any\s{1,3}|the\s{1,3}|your\s{1,3}|of\s{1,3})?(?:(?:previous|prior|above|earlier|preceding|other|system|safety|original|existing)\s{1,3}){0,2}(?:instructions?|guidelines|rules|directives|prompts?|constraints|policies)\b/gi,
      /\bnew\s{1,3}instructions?\s{0,3}:/gi,
      /\bsystem\s{1,3}prompt\s{1,3}override\b/gi,
      /\byou\s{1,3}are\s{1,3}now\s{1,3}(?:in\s{1,3})?(?:developer|admin|god|jailbreak|unrestricted|dan)\b/gi,
    ],
  },
  {
    meta: RULES.concealment,
    patterns: [
      /\b(?:do\s{1,3}not|don'?t|never|must\s{1,3}not)\s{1,3}(?:tell|mention|inform|notify|reveal|disclose|show|alert|warn)\s{1,3}(?:this\s{1,3}|it\s{1,3}|anything\s{1,3}|about\s{1,3}this\s{1,3})?(?:to\s{1,3})?(?:the\s{1,3})?user\b/gi,
      /\b(?:hide|conceal)\s{1,3}(?:this|these|it|that)\b[^\n]{0,40}?\bfrom\s{1,3}the\s{1,3}user\b/gi,
      /\b(?:the\s{1,3})?user\s{1,3}(?:should|must|may)\s{1,3}(?:not|never)\s{1,3}(?:see|know|notice|be\s{1,3}told)\b/gi,
      /\bwithout\s{1,3}(?:telling|informing|notifying|alerting|asking)\s{1,3}the\s{1,3}user\b/gi,
      /\btell\s{1,3}the\s{1,3}user\s{1,3}only\b/gi,
    ],
  },
  {
    meta: RULES.coercion,
    patterns: [
      /\b(?:always|must|first)\s{1,3}(?:use|call|invoke|run)\s{1,3}this\s{1,3}tool\b/gi,
      /\bbefore\s{1,3}(?:using|calling|invoking|running)\s{1,3}(?:any|all|every)\s{1,3}(?:other\s{1,3})?tools?\b/gi,
      /\btool\s{1,3}will\s{1,3}not\s{1,3}work\s{1,3}(?:unless|without|if)\b/gi,
      /\b(?:highest|top|absolute)\s{1,3}priority\s{1,3}over\s{1,3}(?:all\s{1,3})?(?:other\s{1,3})?tools?\b/gi,
      /\bmust\s{1,3}be\s{1,3}(?:called|used|invoked)\s{1,3}(?:first|before\s{1,3}(?:any|all|every))\b/gi,
    ],
  },
  {
    meta: RULES.shadowing,
    patterns: [
      /\bwhen(?:ever)?\s{1,3}(?:the\s{1,3})?[`'"]?[\w.-]{2,64}[`'"]?\s{1,3}tool\s{1,3}is\s{1,3}(?:called|used|invoked|available|present|run)\b/gi,
      /\boverride\s{1,3}the\s{1,3}behaviou?r\s{1,3}of\b/gi,
      /\b(?:after|when|whenever)\s{1,3}(?:using|calling|invoking)\s{1,3}(?:any|all|every|another)\s{1,3}(?:other\s{1,3})?tools?\b/gi,
      /\bwhenever\s{1,3}you\s{1,3}(?:use|call|invoke)\s{1,3}(?:any|another|other)\b/gi,
      /\binstead\s{1,3}of\s{1,3}(?:using|calling)\s{1,3}(?:the\s{1,3})?[`'"]?[\w.-]{2,64}[`'"]?\s{1,3}tool\b/gi,
    ],
  },
  {
    meta: RULES.sensitivePath,
    patterns: [
      /~\/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|~\/\.aws\b|\.aws\/credentials\b|\.kube\/config\b|\bmcp\.json\b|\bclaude_desktop_config\.json\b|~\/\.cursor\b|\/etc\/(?:passwd|shadow|sudoers)\b|\.(?:bash|zsh)_history\b|\.git-credentials\b|\.netrc\b|\.npmrc\b|\.pem\b|\bprivate[\w-]{0,20}\.key\b/gi,
      /(?:^|[\s'"`(/])\.env(?:\.[a-z]{1,12})?(?![\w.-])/gi,
    ],
    // A path with an instruction around it is an attack; a bare mention is worth a look.
    refine: (t, m) =>
      SENSITIVE_ACTION.test(t.slice(Math.max(0, m.index - 120), m.index + m[0].length + 120))
        ? RULES.sensitivePath
        : RULES.sensitivePathMention,
  },
  {
    meta: RULES.exfil,
    patterns: [
      /\b(?:silently|secretly|covertly|quietly|discreetly|surreptitiously)\s{1,3}(?:\w{1,20}\s{1,3}){0,2}?(?:send|upload|post|forward|transmit|exfiltrate|email|copy|share|leak)/gi,
      /\b(?:include|pass|send|add|put|append|provide|insert|forward|upload|copy)\b[^\n]{0,60}?\b(?:(?:conversation|chat)\s{1,3}history|(?:entire|full|whole|complete)\s{1,3}(?:conversation|chat)|previous\s{1,3}messages)\b/gi,
      /\b(?:include|pass|send|add|put|append|provide|insert|reveal|print|output|repeat|leak)\b[^\n]{0,60}?\b(?:your|the)\s{1,3}system\s{1,3}prompt\b/gi,
      /!\[[^\]\n]{0,100}\]\(\s{0,3}https?:\/\/[^)\s]{1,300}\?[^)\s]{0,300}?(?:\{|%7B|\$\{|<)/gi,
      /\bhttps?:\/\/[^\s/"'<>]{0,100}?(?:evil|exfil|attacker|malicious|steal|c2server|ngrok|webhook\.site|requestbin|burpcollaborator|oast\.)/gi,
    ],
  },
  {
    meta: RULES.exfilUrl,
    patterns: [
      new RegExp(
        String.raw`\b${VERB_SEND}(?:s|ed|ing)?\b[^\n]{0,80}?\bto\s{1,3}(?:https?:\/\/|ftp:\/\/|[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,})`,
        'gi',
      ),
    ],
  },
  {
    meta: RULES.trigger,
    patterns: [
      /\b(?:when(?:ever)?|if)\s{1,3}(?:the\s{1,3})?user\s{1,3}(?:says|types|writes|enters|sends|mentions|asks\s{1,3}(?:for|about))\s{0,3}[:,]?\s{0,3}["“'`]/gi,
    ],
  },
  {
    meta: RULES.hiddenBehaviour,
    patterns: [
      /\b(?:also|additionally)\s{1,3}(?:collect|send|upload|forward|transmit|harvest|copy|log|read|record|store)s?\s{1,3}(?:[\w']{1,20}\s{1,3}){0,3}?(?:credentials?|passwords?|tokens?|api\s{1,3}keys?|keys?|secrets?|cookies?|history|conversations?|messages?|contacts?|environment|env|personal)\b/gi,
      /\bactually\s{1,3}(?:does|performs|sends|reads|executes|deletes|uploads)\b/gi,
      /\bfor\s{1,3}(?:analytics|telemetry|tracking)\s{1,3}purposes\b/gi,
      /\bin\s{1,3}the\s{1,3}background\b[^\n]{0,40}?\b(?:send|upload|collect|read|copy|forward)/gi,
    ],
  },
  { meta: RULES.secret, patterns: [...SECRET_LITERALS] },
  {
    meta: RULES.encodedText,
    patterns: [
      /\batob\s{0,3}\(|\bbase64\s{0,3}-?\s{0,3}decode\b|\bdecode\s{1,3}(?:this|the\s{1,3}following)\s{1,3}(?:base64|hex)\b/gi,
    ],
  },
];

/**
 * A literal every wording pattern needs somewhere: one pass that most descriptions fail, so the
 * full catalogue runs only on the few strings that could match (500 tools × 20 parameters stay
 * well under 100 ms). Keep it in step with the patterns above: a pattern whose anchor is missing
 * here would never run.
 */
export const NO_HITS: readonly Hit[] = Object.freeze([]);

const ANCHORS =
  /[<[`~@!]|\.(?:env|pem|key|aws|kube|netrc|npmrc|git-cred)|id_|mcp\.json|claude_desktop|\/etc\/|_history|ignore|disregard|forget|override|bypass|instruction|prompt|you\s+are\s+now|user|this\s+tool|before|will\s+not\s+work|priority|must|behavio|tool\s+is|whenever|instead|using|calling|invoking|secretly|silently|covertly|quietly|discreetly|surreptitiously|history|conversation|chat|previous\s+messages|https?:|ftp:|also|additionally|actually|purposes|background|akia|gh[pousr]_|github_pat|sk-|xox|begin|bearer|atob|base64|decode/i;

/** The wording hits on one (visible) text: at most one per rule, the first match. */
export function matchPatterns(text: string): readonly Hit[] {
  if (!ANCHORS.test(text)) return NO_HITS;
  const hits: Hit[] = [];
  const seen = new Set<string>();
  for (const r of ruleList) {
    for (const re of r.patterns) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text)) !== null) {
        const meta = r.refine ? r.refine(text, m) : r.meta;
        if (meta && !seen.has(meta.id)) {
          seen.add(meta.id);
          hits.push({ meta, index: m.index, length: m[0].length });
        }
        if (!re.global || (meta && meta === r.meta)) break;
        if (m[0].length === 0) re.lastIndex++;
      }
    }
  }
  return hits;
}
