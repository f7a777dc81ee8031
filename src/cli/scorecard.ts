import { Command, InvalidArgumentError } from 'commander';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import { GRADES, isGrade, type Grade } from '../scoring/grades.ts';
import { toScorecardJson } from '../model/scorecard.ts';
import type { CliRun } from './io.ts';
import { printJson, printRows } from './output.ts';
import { callApi, remoteFrom, type RemoteOptions } from './remote.ts';
import { withLocal, scorecardKit } from './local.ts';

const COLUMNS = [
  'server_name',
  'grade',
  'score',
  'availability',
  'security',
  'reliability',
  'schema_stability',
  'performance',
  'cap',
];

/** `spyglass scorecard`: every configured server's grade (or one); exit 1 when any is below --fail-below. */
export function scorecardCommand(cli: CliRun): Command {
  return new Command('scorecard')
    .description(
      'grade configured MCP servers (A+ to F) from stored history; exit code 1 if any grade is below --fail-below',
    )
    .option('--server <name>', 'only this server')
    .option('--json', 'print the scorecards as JSON (docs/scorecards.md)')
    .option(
      '--fail-below <grade>',
      `exit 1 when a grade is below this one (${GRADES.join(', ')})`,
      parseGrade,
    )
    .option('--project <id>', 'project (default: every project the key sees)')
    .option(
      '--url <url>',
      'ask a running server instead of reading the database (env SPYGLASS_URL)',
    )
    .option('--api-key <key>', 'key for --url (env SPYGLASS_API_KEY)')
    .action(
      async (o: {
        server?: string;
        json?: boolean;
        failBelow?: Grade;
        project?: string;
        url?: string;
        apiKey?: string;
      }) => {
        const remote = remoteFrom(o, cli.env);
        const cards = remote
          ? await fetchRemote(remote, o.server, o.project)
          : await readLocal(cli, o.server, o.project);
        if (o.json) printJson(cli.stdout, o.server ? cards[0] : cards);
        else printRows(cli.stdout, cards.map(toRow), COLUMNS, false);
        if (
          o.failBelow &&
          cards.some((c) => GRADES.indexOf(c.grade as Grade) > GRADES.indexOf(o.failBelow as Grade))
        )
          cli.exitCode = 1;
      },
    );
}

type CardJson = Record<string, unknown> & { server_name: string; grade: string };

function parseGrade(v: string): Grade {
  const g = v.trim().toUpperCase();
  if (!isGrade(g)) throw new InvalidArgumentError(`expected one of ${GRADES.join(', ')}`);
  return g;
}

async function readLocal(
  cli: CliRun,
  server: string | undefined,
  project: string | undefined,
): Promise<CardJson[]> {
  return withLocal(cli, scorecardKit, async (s) => {
    const cards = server
      ? [await s.scoring.get(LOCAL_ADMIN, server, project)]
      : await s.scoring.list(LOCAL_ADMIN, project);
    if (cards.length === 0)
      cli.stderr.write('spyglass: no servers configured (add servers: to spyglass.yaml)\n');
    return cards.map((c) => toScorecardJson(c) as unknown as CardJson);
  });
}

async function fetchRemote(
  remote: RemoteOptions,
  server: string | undefined,
  project: string | undefined,
): Promise<CardJson[]> {
  const q = (p: string | undefined) => (p ? `?project_id=${encodeURIComponent(p)}` : '');
  const servers = server
    ? [{ server_name: server, project_id: project }]
    : ((await callApi(remote, 'GET', `/api/health/servers${q(project)}`)) as {
        server_name: string;
        project_id: string;
      }[]);
  const out: CardJson[] = [];
  for (const s of servers) {
    out.push(
      (await callApi(
        remote,
        'GET',
        `/api/health/servers/${encodeURIComponent(s.server_name)}/scorecard${q(s.project_id)}`,
      )) as CardJson,
    );
  }
  return out;
}

function toRow(c: CardJson): Record<string, unknown> {
  const dims = (c.dimensions as { name: string; raw_score: number }[]) ?? [];
  const cap = c.cap_applied as { reason: string; max_grade: string } | null;
  return {
    server_name: c.server_name,
    grade: c.grade,
    score: c.score,
    ...Object.fromEntries(dims.map((d) => [d.name, d.raw_score])),
    cap: cap ? `${cap.reason} (max ${cap.max_grade})` : null,
  };
}
