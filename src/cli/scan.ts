import { relative, sep } from 'node:path';
import { Command } from 'commander';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import { loadConfig } from '../config/load-config.ts';
import { spyglassVersion } from '../package-root.ts';
import { serverLines } from '../security/config-lines.ts';
import { toSarif, type ScanJson } from '../security/sarif.ts';
import { toScanJson } from '../model/security-scan.ts';
import type { CliRun } from './io.ts';
import { escapeLine, printJson, printRows } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, scanKit } from './local.ts';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
type Severity = (typeof SEVERITIES)[number];
const SUMMARY = [
  'server_name',
  'project_id',
  'highest_severity',
  'findings_count',
  'critical_count',
  'high_count',
  'error',
];
const FINDINGS = ['server_name', 'severity', 'rule', 'category', 'tool_name', 'location', 'title'];

interface ScanOpts {
  server?: string;
  json?: boolean;
  sarif?: boolean;
  failOn?: string;
  project?: string;
  url?: string;
  apiKey?: string;
}

/** `spyglass scan`: one security scan of every configured server (or one); exit 1 at or above --fail-on. */
export function scanCommand(cli: CliRun): Command {
  const cmd = new Command('scan')
    .description(
      'scan configured MCP servers for security problems and store the results; exit code 1 when a finding is at or above --fail-on',
    )
    .option('--server <name>', 'scan only this server')
    .option('--json', 'print the scan results as JSON (docs/security.md#results-history-and-pins)')
    .option('--sarif', 'print SARIF 2.1.0 for code-scanning uploads')
    .option(
      '--fail-on <severity>',
      `exit 1 when a finding is at or above this severity (${SEVERITIES.slice(0, 4).join(', ')})`,
    )
    .option('--project <id>', 'project to scan (default: every project the key sees)')
    .option(
      '--url <url>',
      'ask a running server to scan instead of scanning from here (env SPYGLASS_URL)',
    )
    .option('--api-key <key>', 'admin key for --url (env SPYGLASS_API_KEY)');
  return cmd.action(async (o: ScanOpts) => {
    // Usage errors exit 2 before anything is spawned or stored.
    if (o.json && o.sarif)
      cmd.error('spyglass: --json and --sarif cannot be combined', {
        exitCode: 2,
        code: 'spyglass.usage',
      });
    const failOn = o.failOn?.trim().toLowerCase();
    if (failOn !== undefined && !(SEVERITIES.slice(0, 4) as readonly string[]).includes(failOn)) {
      cmd.error(
        `spyglass: --fail-on must be one of ${SEVERITIES.slice(0, 4).join(', ')} (got ${JSON.stringify(o.failOn)})`,
        { exitCode: 2, code: 'spyglass.usage' },
      );
    }
    const remote = remoteFrom(o, cli.env);
    const scans = remote
      ? ((await callApi(remote, 'POST', '/api/security/scan', {
          ...(o.server ? { server_name: o.server } : {}),
          ...(o.project ? { project_id: o.project } : {}),
        })) as ScanJson[])
      : await scanLocally(cli, o);
    if (scans.length === 0 && !o.server)
      cli.stderr.write(
        'spyglass: no MCP servers are configured, so there is nothing to scan (see servers: in spyglass.yaml)\n',
      );
    for (const s of scans)
      if (s.error)
        cli.stderr.write(
          `spyglass: ${escapeLine(s.server_name)}: ${escapeLine(s.error)} (only config-based checks ran)\n`,
        );
    if (o.sarif) printJson(cli.stdout, sarifOf(cli, scans));
    else if (o.json) printJson(cli.stdout, scans);
    else printTables(cli, scans);
    if (
      failOn &&
      scans.some((s) => s.findings.some((f) => atOrAbove(f.severity, failOn as Severity)))
    )
      cli.exitCode = 1;
  });
}

async function scanLocally(cli: CliRun, o: ScanOpts): Promise<ScanJson[]> {
  return withLocal(cli, scanKit, async (s) => {
    const tty = cli.stderr.isTTY;
    const stored = await s.security.scan(
      LOCAL_ADMIN,
      { projectId: o.project, serverName: o.server },
      {
        onObserved: tty
          ? (t, done, total) =>
              cli.stderr.write(
                `\rspyglass: scanned ${done}/${total} (${escapeLine(t.name)})\u001b[K`,
              )
          : undefined,
      },
    );
    if (tty) cli.stderr.write('\r\u001b[K');
    return stored.map((x) => toScanJson(x) as unknown as ScanJson);
  });
}

function sarifOf(cli: CliRun, scans: readonly ScanJson[]): Record<string, unknown> {
  const configPath = loadConfig(cli.env, cli.cwd).configPath;
  return toSarif(scans, {
    toolVersion: spyglassVersion(),
    configUri: configPath ? relative(cli.cwd, configPath).split(sep).join('/') : undefined,
    serverLines: configPath ? serverLines(configPath) : new Map(),
  });
}

function printTables(cli: CliRun, scans: readonly ScanJson[]): void {
  printRows(cli.stdout, scans as unknown as Record<string, unknown>[], SUMMARY, false);
  const findings = scans.flatMap((s) =>
    s.findings.map((f) => ({ ...f, server_name: s.server_name })),
  );
  if (findings.length > 0) printRows(cli.stdout, findings, FINDINGS, false);
}

function atOrAbove(severity: string, threshold: Severity): boolean {
  const i = SEVERITIES.indexOf(severity as Severity);
  return i !== -1 && i <= SEVERITIES.indexOf(threshold);
}
