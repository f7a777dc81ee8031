import { Command, Option } from 'commander';
import { LOCAL_ADMIN } from '../auth/principal.ts';
import {
  LOOP_ACTIONS,
  PREVENTION_FIELDS,
  toPreventionConfigJson,
  type PreventionConfigJson,
  type PreventionFields,
  type ScopedPreventionConfig,
} from '../model/prevention-config.ts';
import type { PreventionService } from '../prevention/config-service.ts';
import type { CliRun } from './io.ts';
import { printJson, printRows } from './output.ts';
import { callApi, remoteFrom, type RemoteOptions } from './remote.ts';
import { withLocal, preventionKit } from './local.ts';

type Common = { agent?: string; project?: string; url?: string; apiKey?: string; json?: boolean };
const LIST_COLUMNS = [
  'agent_name',
  'loop_enabled',
  'loop_threshold',
  'loop_action',
  'max_steps',
  'max_cost_usd',
  'max_wall_time_s',
  'budget_soft_alert',
  'cb_enabled',
  'cb_failure_threshold',
  'updated_at',
];

/** `spyglass prevention get|set|delete|list`: the prevention config API (docs/prevention.md) from a shell. */
export function preventionCommand(cli: CliRun): Command {
  const cmd = new Command('prevention').description(
    'read and change the prevention config the SDK enforces (project default or one agent)',
  );
  cmd.addCommand(
    withCommon(
      new Command('get').description(
        "an agent's effective config (--agent), else the project default",
      ),
    ).action(async (o: Common) => {
      show(
        cli,
        await run(
          cli,
          o,
          (r, qs) => callApi(r, 'GET', effectivePath(o, qs)),
          (s) => s.effective(LOCAL_ADMIN, scope(o)),
        ),
        o,
      );
    }),
  );
  const set = withCommon(
    new Command('set').description('change only the fields given (PATCH); none/null lifts a limit'),
  );
  for (const f of PREVENTION_FIELDS) set.addOption(fieldOption(f));
  cmd.addCommand(
    set.action(async (o: Common & Record<string, string | undefined>) => {
      const body = fieldsOf(o);
      if (Object.keys(body).length === 0)
        throw new Error(
          'nothing to set: give at least one field, e.g. --loop-threshold 3 (see --help)',
        );
      show(
        cli,
        await run(
          cli,
          o,
          (r, qs) => callApi(r, 'PATCH', `${path(o)}${qs}`, body),
          (s) => s.update(LOCAL_ADMIN, scope(o), { fields: body }),
        ),
        o,
      );
    }),
  );
  cmd.addCommand(
    withCommon(
      new Command('delete').description(
        "remove an agent's override (it falls back to the project default), else the project default (back to the spec defaults)",
      ),
    ).action(async (o: Common) => {
      show(
        cli,
        await run(
          cli,
          o,
          async (r, qs) => {
            await callApi(r, 'DELETE', `${path(o)}${qs}`);
            return callApi(r, 'GET', effectivePath(o, qs));
          },
          (s) => s.remove(LOCAL_ADMIN, scope(o)),
        ),
        o,
      );
    }),
  );
  cmd.addCommand(
    withCommon(
      new Command('list').description('every stored config of the project, the default first'),
      false,
    ).action(async (o: Common) => {
      const rows = (await run(
        cli,
        o,
        (r, qs) => callApi(r, 'GET', `/api/prevention-configs${qs}`),
        (s) => s.list(LOCAL_ADMIN, project(o)),
      )) as unknown as Record<string, unknown>[];
      printRows(cli.stdout, rows, LIST_COLUMNS, o.json ?? false);
    }),
  );
  return cmd;
}

function withCommon(c: Command, agent = true): Command {
  if (agent) c.option('--agent <name>', 'an agent (its override); omitted = the project default');
  return c
    .option('--project <id>', "project (default: the key's project, else default)")
    .option('--url <url>', 'talk to a running server instead of the database (env SPYGLASS_URL)')
    .option('--api-key <key>', 'key for --url (env SPYGLASS_API_KEY)')
    .option('--json', 'print JSON');
}

/** Against a server when --url (or SPYGLASS_URL) is set, else directly on the configured database. */
async function run(
  cli: CliRun,
  o: Common,
  remote: (r: RemoteOptions, qs: string) => Promise<unknown>,
  local: (s: PreventionService) => Promise<ScopedPreventionConfig | ScopedPreventionConfig[]>,
) {
  const r = remoteFrom(o, cli.env);
  if (r)
    return (await remote(
      r,
      o.project === undefined
        ? ''
        : `?${new URLSearchParams({ project_id: o.project }).toString()}`,
    )) as PreventionConfigJson | PreventionConfigJson[];
  return withLocal(cli, preventionKit, async (s) => {
    const out = await local(s.prevention);
    return Array.isArray(out) ? out.map(toPreventionConfigJson) : toPreventionConfigJson(out);
  });
}

const path = (o: Common) =>
  o.agent === undefined
    ? '/api/prevention-config'
    : `/api/agents/${encodeURIComponent(o.agent)}/prevention-config`;
/** A GET of the config in effect, built-in defaults included (the agent route answers 404 without). */
const effectivePath = (o: Common, qs: string) =>
  `${path(o)}${qs ? `${qs}&` : '?'}include_defaults=true`;
const project = (o: Common) => o.project ?? 'default';
const scope = (o: Common) => ({ projectId: project(o), agentName: o.agent });
const camel = (f: string) => f.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

function fieldOption(f: (typeof PREVENTION_FIELDS)[number]): Option {
  const flag = `--${f.replaceAll('_', '-')} <value>`;
  if (f === 'loop_action')
    return new Option(flag, 'what a detected loop does').choices([...LOOP_ACTIONS]);
  if (f === 'loop_enabled' || f === 'cb_enabled') return new Option(flag, 'true or false');
  return new Option(
    flag,
    f.startsWith('max_') || f === 'budget_soft_alert'
      ? 'a number, or none for no limit'
      : 'an integer ≥ 1',
  );
}

/** The fields given as options, typed: none/null lifts a limit; an unreadable value names its option. */
function fieldsOf(o: Record<string, string | undefined>): PreventionFields {
  const fields: Record<string, boolean | number | string | null> = {};
  for (const f of PREVENTION_FIELDS) {
    const given = o[camel(f)];
    if (given === undefined) continue;
    const t = given.trim().toLowerCase();
    if (f === 'loop_action') fields[f] = given;
    else if (f === 'loop_enabled' || f === 'cb_enabled') {
      if (!['true', 'on', 'false', 'off'].includes(t))
        throw new Error(`--${f.replaceAll('_', '-')} takes true or false, not ${given}`);
      fields[f] = t === 'true' || t === 'on';
    } else if (t === 'none' || t === 'null') fields[f] = null;
    else {
      const n = Number(t);
      if (t === '' || !Number.isFinite(n))
        throw new Error(`--${f.replaceAll('_', '-')} takes a number, not ${given}`);
      fields[f] = n;
    }
  }
  return fields as PreventionFields;
}

function show(cli: CliRun, config: unknown, o: Common): void {
  if (o.json) return printJson(cli.stdout, config);
  const c = config as Record<string, unknown>;
  printRows(
    cli.stdout,
    ['agent_name', 'is_agent_override', ...PREVENTION_FIELDS, 'updated_at'].map((k) => ({
      field: k,
      value: c[k],
    })),
    ['field', 'value'],
    false,
  );
}
