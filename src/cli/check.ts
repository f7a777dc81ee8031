import { Command } from 'commander';
import type { CheckReport } from '../health/checker.ts';
import { toDriftJson, toHealthJson } from '../health/types.ts';
import type { Services } from '../services.ts';
import { printRows } from './output.ts';
import { callApi, remoteFrom, withLocalServices } from './remote.ts';

export const CHECK_COLUMNS = ['server_name', 'status', 'latency_ms', 'tools_count', 'schema_drift', 'error'];

/** `spyglass check`: one health check of every configured server (or one); exit 1 if any is down. */
export function checkCommand(): Command {
  return new Command('check')
    .description('check configured MCP servers once and store the results; exit code 1 if any is down')
    .option('--server <name>', 'check only this server')
    .option('--json', 'print JSON (adds schema_drift and the drift event)')
    .option('--url <url>', 'ask a running server to check instead of checking from here (env SPYGLASS_URL)')
    .option('--api-key <key>', 'admin key for --url (env SPYGLASS_API_KEY)')
    .action(async (o: { server?: string; json?: boolean; url?: string; apiKey?: string }) => {
      const remote = remoteFrom(o);
      const rows = remote
        ? ((await callApi(remote, 'POST', '/api/health/check', o.server ? { server_name: o.server } : {})) as Record<string, unknown>[])
        : await withLocalServices(async (s) => (await checkLocally(s, o.server)).map(reportJson));
      printRows(rows, CHECK_COLUMNS, o.json ?? false);
      if (rows.some((r) => r.status === 'down')) process.exitCode = 1;
    });
}

export async function checkLocally(s: Services, server: string | undefined): Promise<CheckReport[]> {
  let targets = await s.health.targets(null);
  if (server !== undefined) {
    targets = targets.filter((t) => t.name === server);
    if (targets.length === 0) throw new Error(`no configured server named ${server} (see servers: in spyglass.yaml)`);
  }
  if (targets.length === 0) process.stderr.write('spyglass: no servers configured (add servers: to spyglass.yaml)\n');
  return s.health.checkAll(targets);
}

export function reportJson(r: CheckReport): Record<string, unknown> {
  return { ...toHealthJson(r.result, { drift: true }), drift: r.drift ? toDriftJson(r.drift) : null };
}
