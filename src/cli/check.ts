import { Command } from 'commander';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';
import type { CheckReport } from '../health/checker.ts';
import { toCheckJson, type DriftChange } from '../model/health.ts';
import type { HealthService } from '../health/health-service.ts';
import type { CliRun } from './io.ts';
import { Lines, printRows } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, checkKit } from './local.ts';

export const CHECK_COLUMNS = [
  'server_name',
  'status',
  'latency_ms',
  'tools_count',
  'error',
  'drift',
];

/** `spyglass check`: one health check of every configured server (or one); exit 1 if any is down. */
export function checkCommand(cli: CliRun): Command {
  return new Command('check')
    .description(
      'check configured MCP servers once and store the results; exit code 1 if any is down',
    )
    .option('--server <name>', 'check only this server')
    .option('--json', 'print JSON (adds schema_drift and the drift event)')
    .option(
      '--url <url>',
      'ask a running server to check instead of checking from here (env SPYGLASS_URL)',
    )
    .option('--api-key <key>', 'admin key for --url (env SPYGLASS_API_KEY)')
    .action(async (o: { server?: string; json?: boolean; url?: string; apiKey?: string }) => {
      const remote = remoteFrom(o, cli.env);
      const rows = remote
        ? ((await callApi(
            remote,
            'POST',
            '/api/health/check',
            o.server ? { server_name: o.server } : {},
          )) as Record<string, unknown>[])
        : await withLocal(cli, checkKit, async (s) =>
            (await checkLocally(s, o.server)).map(toCheckJson),
          );
      if (rows.length === 0 && !o.server) cli.stderr.write(NO_SERVERS);
      printCheckRows(cli, rows, o.json ?? false);
      if (rows.some((r) => r.status === 'down')) cli.exitCode = 1;
    });
}

export async function checkLocally(
  s: { health: Pick<HealthService, 'runChecks'> },
  server: string | undefined,
): Promise<CheckReport[]> {
  try {
    return await s.health.runChecks(LOCAL_ADMIN, { serverName: server });
  } catch (err) {
    if (err instanceof SpyglassError && err.code === 'not_found')
      throw new Error(`no configured server named ${server} (see servers: in spyglass.yaml)`);
    throw err;
  }
}

export const NO_SERVERS = `spyglass: no MCP servers are configured, so there is nothing to check. Add one to spyglass.yaml
(in the working directory, or the file SPYGLASS_CONFIG names), for example:

  servers:
    - name: everything
      transport: stdio                 # or streamable_http / sse with url:
      command: npx
      args: ["-y", "@modelcontextprotocol/server-everything"]

or register one on a running server: PUT /api/servers/metadata/<name> with transport and url.
See docs/health.md.
`;

/** The table (for people) lists each drift change; --json prints the rows as they are. */
export function printCheckRows(cli: CliRun, rows: Record<string, unknown>[], json: boolean): void {
  if (json || rows.length === 0) return printRows(cli.stdout, rows, CHECK_COLUMNS, json);
  printRows(
    cli.stdout,
    rows.map((r) => ({ ...r, drift: driftText(r.drift) })),
    CHECK_COLUMNS,
    false,
  );
}

function driftText(drift: unknown): Lines | null {
  const changes = (drift as { changes?: DriftChange[] } | null)?.changes;
  if (!changes?.length) return null;
  return new Lines(
    changes.map((c) =>
      `${c.classification} ${c.change_type} ${[c.tool_name, c.param_name].filter(Boolean).join('.')}${c.detail ? ` (${c.detail})` : ''}`.trim(),
    ),
  );
}
