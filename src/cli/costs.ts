import { Command, Option } from 'commander';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import {
  COST_WINDOWS,
  toCostBreakdownJson,
  type CostBreakdownJson,
  type CostWindow,
} from '../model/cost.ts';
import type { CliRun } from './io.ts';
import { printJson, printRows } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, costsKit } from './local.ts';

/** `spyglass costs`: the cost breakdown of a window as three tables (model, tool, agent), or JSON. */
export function costsCommand(cli: CliRun): Command {
  return new Command('costs')
    .description('cost breakdown by model, tool and agent over a window')
    .addOption(
      new Option('--window <window>', 'window ending at the end of the current hour')
        .choices(Object.keys(COST_WINDOWS))
        .default('24h'),
    )
    .option('--project <id>', "project (default: the key's project, else default)")
    .option('--url <url>', 'talk to a running server instead of the database (env SPYGLASS_URL)')
    .option('--api-key <key>', 'key for --url (env SPYGLASS_API_KEY)')
    .option('--json', 'print the whole breakdown as JSON')
    .action(
      async (o: {
        window: CostWindow;
        project?: string;
        url?: string;
        apiKey?: string;
        json?: boolean;
      }) => {
        const remote = remoteFrom(o, cli.env);
        const query = new URLSearchParams({
          window: o.window,
          ...(o.project ? { project_id: o.project } : {}),
        });
        const b = remote
          ? ((await callApi(
              remote,
              'GET',
              `/api/costs/breakdown?${query.toString()}`,
            )) as CostBreakdownJson)
          : await withLocal(cli, costsKit, async (s) =>
              toCostBreakdownJson(
                await s.costs.breakdown(LOCAL_ADMIN, { projectId: o.project, window: o.window }),
              ),
            );
        if (o.json) return printJson(cli.stdout, b);
        cli.stdout.write(
          `costs ${b.window} (${b.since} to ${b.until}): total $${b.total_cost_usd.toFixed(4)}, LLM $${b.llm_cost_usd.toFixed(4)}, tools $${b.tool_cost_usd.toFixed(4)}\n\nby model\n`,
        );
        printRows(
          cli.stdout,
          b.by_model,
          ['model_id', 'calls', 'input_tokens', 'output_tokens', 'cost_usd', 'estimated'],
          false,
        );
        cli.stdout.write('\nby tool\n');
        printRows(cli.stdout, b.by_tool, ['server_name', 'tool_name', 'calls', 'cost_usd'], false);
        cli.stdout.write('\nby agent\n');
        printRows(
          cli.stdout,
          b.by_agent,
          ['agent_name', 'llm_cost_usd', 'tool_cost_usd', 'cost_usd'],
          false,
        );
      },
    );
}
