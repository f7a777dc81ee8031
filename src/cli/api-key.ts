import { Command, Option } from 'commander';
import type { Principal } from '../auth/principal.ts';
import { toApiKeyJson } from '../model/api-key.ts';
import type { CliRun } from './io.ts';
import { printJson, printRows } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, apiKeyKit } from './local.ts';

const CLI_ACTOR: Principal = { role: 'admin', projectId: null, actor: 'cli', keyId: null };
const COLUMNS = [
  'id',
  'name',
  'prefix',
  'role',
  'project_id',
  'created_at',
  'expires_at',
  'revoked_at',
];

/** `spyglass api-key create|list|revoke`: on the database directly, or through a server with --url. */
export function apiKeyCommand(cli: CliRun): Command {
  const cmd = new Command('api-key').description('create, list and revoke API keys');
  const remoteOptions = (c: Command) =>
    c
      .option('--url <url>', 'talk to a running server instead of the database (env SPYGLASS_URL)')
      .option('--api-key <key>', 'admin key for --url (env SPYGLASS_API_KEY)')
      .option('--json', 'print JSON');

  remoteOptions(
    cmd
      .command('create')
      .description('create a key; it is printed once and cannot be shown again')
      .requiredOption('--name <name>', 'what the key is for')
      .addOption(
        new Option('--role <role>', 'admin or viewer')
          .choices(['admin', 'viewer'])
          .default('viewer'),
      )
      .option('--project <id>', 'bind the key to one project')
      .option('--expires-in-days <days>', 'expire the key after this many days'),
  ).action(
    async (o: {
      name: string;
      role: string;
      project?: string;
      expiresInDays?: string;
      json?: boolean;
      url?: string;
      apiKey?: string;
    }) => {
      const body = {
        name: o.name,
        role: o.role,
        project_id: o.project ?? null,
        expires_in_days: o.expiresInDays,
      };
      const remote = remoteFrom(o, cli.env);
      const created = remote
        ? ((await callApi(remote, 'POST', '/api/auth/api-keys', body)) as Record<string, unknown>)
        : await withLocal(cli, apiKeyKit, async (s) => {
            const { key, apiKey } = await s.keyAdmin.create(CLI_ACTOR, {
              name: o.name,
              role: o.role,
              projectId: o.project ?? null,
              // NaN for text that is no number: KeyAdmin's 422, as over --url.
              expiresInDays: o.expiresInDays === undefined ? undefined : Number(o.expiresInDays),
            });
            return { ...toApiKeyJson(apiKey), key };
          });
      if (o.json) return printJson(cli.stdout, created);
      cli.stdout.write(
        `Created ${String(created.role)} key "${String(created.name)}" (id ${String(created.id)}).\n`,
      );
      cli.stdout.write(`\n  ${String(created.key)}\n\nStore it now: it is not shown again.\n`);
    },
  );

  remoteOptions(
    cmd
      .command('list')
      .description('list keys (never the keys themselves)')
      .option('--project <id>', 'only keys bound to this project'),
  ).action(async (o: { project?: string; json?: boolean; url?: string; apiKey?: string }) => {
    const remote = remoteFrom(o, cli.env);
    const rows = remote
      ? ((await callApi(
          remote,
          'GET',
          `/api/auth/api-keys${o.project ? `?project_id=${encodeURIComponent(o.project)}` : ''}`,
        )) as Record<string, unknown>[])
      : await withLocal(cli, apiKeyKit, async (s) =>
          (await s.keyAdmin.list(CLI_ACTOR, o.project ?? null)).map(toApiKeyJson),
        );
    printRows(cli.stdout, rows, COLUMNS, o.json ?? false);
  });

  remoteOptions(
    cmd
      .command('revoke')
      .description('revoke a key by id')
      .argument('<id>', 'key id (see `spyglass api-key list`)'),
  ).action(async (id: string, o: { json?: boolean; url?: string; apiKey?: string }) => {
    const remote = remoteFrom(o, cli.env);
    const result = remote
      ? await callApi(remote, 'DELETE', `/api/auth/api-keys/${encodeURIComponent(id)}`)
      : await withLocal(cli, apiKeyKit, async (s) => {
          await s.keyAdmin.revoke(CLI_ACTOR, id);
          return { id, revoked: true };
        });
    if (o.json) return printJson(cli.stdout, result);
    cli.stdout.write(`Revoked key ${id}.\n`);
  });
  return cmd;
}
