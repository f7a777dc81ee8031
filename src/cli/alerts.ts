import { Command, Option } from 'commander';
import type { Transition } from '../alerts/inbox.ts';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import { toAlertJson, type AlertJson } from '../model/alert-json.ts';
import { ALERT_TYPES, SEVERITIES, SNOOZE_MINUTES } from '../model/alert.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { intFromText } from '../traces/query-params.ts';
import type { CliRun } from './io.ts';
import { printJson, printRows } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, alertsKit } from './local.ts';

const COLUMNS = [
  'id',
  'severity',
  'type',
  'status',
  'title',
  'server_name',
  'fired_at',
  'delivery',
];
const STATUSES = ['firing', 'acknowledged', 'snoozed', 'resolved', 'active', 'all'];

interface Common {
  project?: string;
  url?: string;
  apiKey?: string;
  json?: boolean;
}

const withCommon = (c: Command) =>
  c
    .option('--project <id>', "project (default: the key's project, else default)")
    .option('--url <url>', 'talk to a running server instead of the database (env SPYGLASS_URL)')
    .option('--api-key <key>', 'key for --url (env SPYGLASS_API_KEY)')
    .option('--json', 'print JSON');

const query = (q: Record<string, string | undefined>) =>
  new URLSearchParams(
    Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();

/** `spyglass alerts`: the inbox as a table; `alerts ack|resolve|snooze ID` move one alert (docs/alerts.md). */
export function alertsCommand(cli: CliRun): Command {
  const cmd = withCommon(
    new Command('alerts')
      .description(
        'list the alert inbox (default: the active view, everything not resolved), or ack / resolve / snooze an alert',
      )
      .addOption(new Option('--status <status>', 'only alerts in this status').choices(STATUSES))
      .addOption(new Option('--type <type>', 'only alerts of this type').choices([...ALERT_TYPES]))
      .addOption(
        new Option('--severity <severity>', 'only alerts of this severity').choices([
          ...SEVERITIES,
        ]),
      )
      .option('--limit <n>', 'how many alerts (1-200)', '50'),
  ).action(
    async (o: Common & { status?: string; type?: string; severity?: string; limit: string }) => {
      const remote = remoteFrom(o, cli.env);
      const q = { status: o.status, type: o.type, severity: o.severity, limit: o.limit };
      const rows = remote
        ? ((await callApi(
            remote,
            'GET',
            `/api/alerts/inbox?${query({ ...q, project_id: o.project })}`,
          )) as AlertJson[])
        : await withLocal(cli, alertsKit, async (s) =>
            (
              await s.alerts.inbox(LOCAL_ADMIN, {
                ...q,
                limit: intFromText(o.limit),
                projectId: o.project ?? DEFAULT_PROJECT,
              })
            ).alerts.map(toAlertJson),
          );
      printRows(cli.stdout, rows as unknown as Record<string, unknown>[], COLUMNS, o.json ?? false);
    },
  );
  for (const action of ['ack', 'resolve', 'snooze'] as const) {
    const sub = withCommon(
      new Command(action)
        .argument('<id>', 'alert id')
        .description(`${action === 'ack' ? 'acknowledge' : action} one alert`),
    );
    if (action === 'snooze')
      sub.addOption(
        new Option('--minutes <n>', 'snooze length')
          .choices(SNOOZE_MINUTES.map(String))
          .default('60'),
      );
    sub.action(async (id: string, o: Common & { minutes?: string }) => {
      const remote = remoteFrom(o, cli.env);
      const t: Transition =
        action === 'snooze' ? { action, minutes: Number(o.minutes) } : { action };
      const path = `/api/alerts/${encodeURIComponent(id)}/${action}${o.project ? `?project_id=${encodeURIComponent(o.project)}` : ''}`;
      const alert = remote
        ? ((await callApi(
            remote,
            'POST',
            path,
            action === 'snooze' ? { minutes: Number(o.minutes) } : {},
          )) as AlertJson)
        : await withLocal(cli, alertsKit, async (s) =>
            toAlertJson(await s.alerts.move(LOCAL_ADMIN, id, t, o.project ?? DEFAULT_PROJECT)),
          );
      if (o.json) return printJson(cli.stdout, alert);
      cli.stdout.write(
        `alert ${alert.id} is ${alert.status}${alert.snoozed_until ? ` until ${alert.snoozed_until}` : ''}\n`,
      );
    });
    cmd.addCommand(sub);
  }
  // Options after `ack ID` belong to ack (--url, --json), not to the listing.
  return cmd.enablePositionalOptions();
}
