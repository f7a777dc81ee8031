import { Command } from 'commander';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import { toSloJson, toSloStatusJson, type SloJson, type SloStatusJson } from '../model/slo.ts';
import type { CliRun } from './io.ts';
import { printRows } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, slosKit } from './local.ts';

const STATUS_COLUMNS = [
  'agent_name',
  'metric',
  'target',
  'current_value',
  'status',
  'sample_size',
  'window_hours',
  'slo_id',
];
const DEFINITION_COLUMNS = [
  'agent_name',
  'metric',
  'threshold',
  'window_hours',
  'slo_id',
  'updated_at',
];

/** `spyglass slos`: every SLO of a project evaluated now, or (--definitions) the SLOs as defined. */
export function slosCommand(cli: CliRun): Command {
  return new Command('slos')
    .description(
      'evaluate the SLOs of a project now (ok, breached, no_data), or list them (--definitions)',
    )
    .option('--agent <name>', 'only the SLOs of this agent')
    .option('--definitions', 'list the SLO definitions instead of evaluating them')
    .option('--project <id>', "project (default: the key's project, else default)")
    .option('--url <url>', 'talk to a running server instead of the database (env SPYGLASS_URL)')
    .option('--api-key <key>', 'key for --url (env SPYGLASS_API_KEY)')
    .option('--json', 'print JSON')
    .action(
      async (o: {
        agent?: string;
        definitions?: boolean;
        project?: string;
        url?: string;
        apiKey?: string;
        json?: boolean;
      }) => {
        const remote = remoteFrom(o, cli.env);
        const query = new URLSearchParams(
          Object.entries({
            project_id: o.project,
            agent_name: o.definitions ? undefined : o.agent,
          }).filter((e): e is [string, string] => e[1] !== undefined),
        );
        const qs = query.size > 0 ? `?${query.toString()}` : '';
        let rows: (SloJson | SloStatusJson)[];
        if (o.definitions) {
          const all = remote
            ? ((await callApi(remote, 'GET', `/api/slos${qs}`)) as SloJson[])
            : await withLocal(cli, slosKit, async (s) =>
                (await s.slos.list(LOCAL_ADMIN, o.project ?? 'default')).map(toSloJson),
              );
          rows = o.agent === undefined ? all : all.filter((r) => r.agent_name === o.agent);
        } else {
          // Evaluating records transitions, exactly as the server's background evaluator does.
          rows = remote
            ? ((await callApi(remote, 'GET', `/api/slos/status${qs}`)) as SloStatusJson[])
            : await withLocal(cli, slosKit, async (s) =>
                (
                  await s.slos.status(LOCAL_ADMIN, {
                    projectId: o.project ?? 'default',
                    agentName: o.agent,
                  })
                ).map(toSloStatusJson),
              );
        }
        printRows(
          cli.stdout,
          rows as unknown as Record<string, unknown>[],
          o.definitions ? DEFINITION_COLUMNS : STATUS_COLUMNS,
          o.json ?? false,
        );
      },
    );
}
