import type { Alert } from '../model/alert.ts';

/**
 * The Slack Block Kit message of an alert (docs/alerts.md#chat-message): a header with severity and title, a
 * section with the facts as fields, and a context line with when it fired and the alert id.
 * Block Kit limits: header text 150 chars, section text 3,000, at most 10 fields of 2,000 each.
 */
const SEVERITY_MARK: Record<Alert['severity'], string> = {
  critical: '🔴 CRITICAL',
  warning: '🟠 WARNING',
  info: '🔵 INFO',
};

export interface ChatMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function chatMessage(a: Alert): ChatMessage {
  const facts: [string, string][] = [
    ['Type', a.type],
    ['Project', a.projectId],
  ];
  if (a.serverName) facts.push(['Server', a.serverName]);
  if (a.agentName) facts.push(['Agent', a.agentName]);
  if (a.sessionId) facts.push(['Session', a.sessionId]);
  for (const [k, v] of Object.entries(a.fields)) facts.push([k, v === null ? '-' : String(v)]);
  const header = cut(`${SEVERITY_MARK[a.severity]}: ${a.title}`, 150);
  return {
    // The notification text for clients that do not render blocks.
    text: header,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: header, emoji: true } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: cut(a.message || a.title, 3000) },
        fields: facts
          .slice(0, 10)
          .map(([k, v]) => ({ type: 'mrkdwn', text: cut(`*${k}*\n${v}`, 2000) })),
      },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `Fired ${a.firedAt.toISOString()} · alert ${a.id}` }],
      },
    ],
  };
}

/** The message POST /api/alerts/test sends. */
export function testMessage(projectId: string, now: Date): ChatMessage {
  const header = '🔵 INFO: Spyglass test alert';
  return {
    text: header,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: header, emoji: true } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: 'This webhook receives Spyglass alerts.' },
        fields: [{ type: 'mrkdwn', text: `*Project*\n${projectId}` }],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Sent ${now.toISOString()}` }] },
    ],
  };
}
