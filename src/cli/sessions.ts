import { Command, Option } from 'commander';
import { HEALTH_TAGS } from '../model/span.ts';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import {
  toSessionJson,
  toSessionTreeJson,
  type SessionJson,
  type SessionTreeJson,
  type TreeNodeJson,
} from '../model/session.ts';
import type { CliRun } from './io.ts';
import { escapeLine, printJson, printRows } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, sessionsKit } from './local.ts';

const COLUMNS = [
  'session_id',
  'agent_name',
  'health_tag',
  'tool_calls',
  'failed_calls',
  'duration_ms',
  'est_cost_usd',
  'last_call_at',
];

/** `spyglass sessions`: recent sessions as a table, or one session as a tree. */
export function sessionsCommand(cli: CliRun): Command {
  return (
    new Command('sessions')
      .description('list recent sessions, or show one session as a span tree (--id)')
      .option('--agent <name>', 'only sessions of this agent')
      // An unknown tag is refused with the allowed values, not answered with an empty list.
      .addOption(
        new Option('--tag <health_tag>', 'only sessions with this health tag').choices(HEALTH_TAGS),
      )
      .option('--since <iso>', 'sessions active since (default: last 24 h)')
      .option('--limit <n>', 'how many sessions', '50')
      .option('--id <session_id>', 'show this session as a tree')
      .option('--project <id>', 'project (default: every project the key sees)')
      .option('--url <url>', 'talk to a running server instead of the database (env SPYGLASS_URL)')
      .option('--api-key <key>', 'key for --url (env SPYGLASS_API_KEY)')
      .option('--json', 'print JSON')
      .action(
        async (o: {
          agent?: string;
          tag?: string;
          since?: string;
          limit: string;
          id?: string;
          project?: string;
          url?: string;
          apiKey?: string;
          json?: boolean;
        }) => {
          const remote = remoteFrom(o, cli.env);
          if (o.id) {
            const path = `/api/agents/sessions/${encodeURIComponent(o.id)}${o.project ? `?project_id=${encodeURIComponent(o.project)}` : ''}`;
            const detail = remote
              ? ((await callApi(remote, 'GET', path)) as SessionTreeJson)
              : await withLocal(cli, sessionsKit, async (s) =>
                  toSessionTreeJson(await s.sessions.tree(LOCAL_ADMIN, o.id as string, o.project)),
                );
            if (o.json) return printJson(cli.stdout, detail);
            cli.stdout.write(renderSession(detail.session, detail.spans, detail.truncated));
            return;
          }
          const query = {
            agent_name: o.agent,
            health_tag: o.tag,
            since: o.since,
            limit: o.limit,
            project_id: o.project,
          };
          const rows = remote
            ? ((await callApi(
                remote,
                'GET',
                `/api/agents/sessions?${toQuery(query)}`,
              )) as SessionJson[])
            : await withLocal(cli, sessionsKit, async (s) => {
                const { intFromText, timeFromText } = await import('../traces/query-params.ts');
                const page = await s.sessions.list(LOCAL_ADMIN, {
                  projectId: o.project,
                  agentName: o.agent,
                  healthTag: o.tag,
                  since: timeFromText(o.since),
                  limit: intFromText(o.limit),
                });
                return page.sessions.map(toSessionJson);
              });
          printRows(
            cli.stdout,
            rows as unknown as Record<string, unknown>[],
            COLUMNS,
            o.json ?? false,
          );
        },
      )
  );
}

/** A session header and its spans drawn as a tree with box-drawing branches; every line escaped for a terminal. */
export function renderSession(s: SessionJson, roots: TreeNodeJson[], truncated: boolean): string {
  const lines = [
    `session ${s.session_id}  agent ${s.agent_name ?? '-'}  ${s.health_tag}`,
    `${s.tool_calls} tool calls, ${s.failed_calls} failed, ${s.duration_ms} ms, ${s.input_tokens}+${s.output_tokens} tokens, $${s.est_cost_usd.toFixed(4)}, servers: ${s.servers_used.join(', ') || '-'}`,
    '',
  ];
  const walk = (nodes: TreeNodeJson[], prefix: string) => {
    nodes.forEach((n, i) => {
      const last = i === nodes.length - 1;
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${label(n)}`);
      walk(n.children, `${prefix}${last ? '   ' : '│  '}`);
    });
  };
  walk(roots, '');
  if (truncated) lines.push('… (truncated: the session has more spans than a tree shows)');
  // Names and errors come from spans, which quote agents and servers: one escaped line each.
  return `${lines.map(escapeLine).join('\n')}\n`;
}

function label(n: TreeNodeJson): string {
  const mark = n.status === 'success' ? '✓' : n.status === 'prevented' ? '⊘' : '✗';
  const what = describe(n);
  const extra = [n.error, n.health_tag].filter(Boolean).join(', ');
  return `${mark} ${what}  ${Math.round(n.latency_ms)} ms${extra ? `  (${extra})` : ''}`;
}

function describe(n: TreeNodeJson): string {
  switch (n.span_type) {
    case 'tool_call':
      return `${n.server_name}.${n.tool_name}`;
    case 'agent':
      return `agent ${n.server_name}: ${n.tool_name}`;
    case 'llm_intent':
      return `LLM asked for ${n.tool_name}`;
    case 'user_message':
      return `user message`;
    default:
      return `handoff ${n.tool_name}`;
  }
}

function toQuery(q: Record<string, string | undefined>): string {
  return new URLSearchParams(
    Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();
}
