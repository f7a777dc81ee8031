import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { escapeHidden } from '../security/poisoning/text.ts';
import { storeErrorText } from '../store/store-error.ts';

const { version } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/**
 * Every command, loaded only when it runs: `spyglass --version`, `--help` and commands that talk to
 * a server through --url do not load the server's module graph (the store, Fastify, GraphQL...).
 * The descriptions here are the one-line summaries of `spyglass --help`; each command's own help
 * (`spyglass sessions --help`) comes from its module.
 */
const COMMANDS: Record<string, { description: string; load: () => Promise<Command> }> = {
  serve: {
    description: 'run the service: REST, GraphQL, OTLP/HTTP and OTLP/gRPC receivers, live events',
    load: async () =>
      new Command('serve')
        .description(
          'run the service: REST, GraphQL, OTLP/HTTP and OTLP/gRPC receivers, live events',
        )
        .action((await import('./serve.ts')).runServe),
  },
  'api-key': {
    description: 'create, list and revoke API keys',
    load: async () => (await import('./api-key.ts')).apiKeyCommand(),
  },
  check: {
    description: 'check configured MCP servers once and store the results',
    load: async () => (await import('./check.ts')).checkCommand(),
  },
  monitor: {
    description: 'check configured MCP servers on their intervals until stopped',
    load: async () => (await import('./monitor.ts')).monitorCommand(),
  },
  sessions: {
    description: 'list recent sessions, or show one session as a span tree (--id)',
    load: async () => (await import('./sessions.ts')).sessionsCommand(),
  },
  costs: {
    description: 'cost breakdown by model, tool and agent over a window',
    load: async () => (await import('./costs.ts')).costsCommand(),
  },
  scorecard: {
    description: 'grade configured MCP servers (A+ to F) from stored history',
    load: async () => (await import('./scorecard.ts')).scorecardCommand(),
  },
  scan: {
    description: 'scan configured MCP servers for security problems and store the results',
    load: async () => (await import('./scan.ts')).scanCommand(),
  },
  slos: {
    description: 'evaluate the SLOs of a project now, or list them (--definitions)',
    load: async () => (await import('./slos.ts')).slosCommand(),
  },
  alerts: {
    description: 'list the alert inbox, or ack / resolve / snooze an alert',
    load: async () => (await import('./alerts.ts')).alertsCommand(),
  },
  prevention: {
    description: 'read and change the prevention config the SDK enforces',
    load: async () => (await import('./prevention.ts')).preventionCommand(),
  },
};

/** A program with the same name and parsing rules as the one users see (usage lines read `spyglass <command>`). */
const newProgram = (): Command =>
  new Command()
    .name('spyglass')
    .showHelpAfterError()
    // Options after a subcommand belong to it: `alerts ack ID --url U` must reach ack, not the listing.
    .enablePositionalOptions();

const program = newProgram()
  .version(version, '-V, --version', 'print the version and exit')
  .description('Observability and runtime reliability for AI agents and the MCP servers they call');

for (const [name, { description, load }] of Object.entries(COMMANDS)) {
  // A stand-in that takes every argument as it is and hands it to the real command once loaded;
  // `--help` passes through too, so `spyglass sessions --help` prints the real command's help.
  program
    .command(name)
    .description(description)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_opts: unknown, stub: Command) => {
      const real = newProgram().addCommand(await load());
      await real.parseAsync([name, ...stub.args], { from: 'user' });
    });
}

// `spyglass help <command>` would print the stand-in's help: ask the real command instead.
const argv = process.argv.slice(2);
const args =
  argv[0] === 'help' && argv[1] !== undefined && argv[1] in COMMANDS ? [argv[1], '--help'] : argv;

try {
  await program.parseAsync(args, { from: 'user' });
} catch (err) {
  if ((err as Error).name === 'ConfigError') {
    process.stderr.write(`spyglass: ${escapeHidden((err as Error).message)}\n`);
    process.exit(2);
  }
  const { SpyglassError } = await import('../errors.ts');
  // A failed statement's message is its SQL and parameters: only its SQLSTATE is printed.
  const detail =
    err instanceof SpyglassError && err.issues
      ? err.issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ')
      : (storeErrorText(err) ?? (err as Error).message);
  process.stderr.write(`spyglass: ${escapeHidden(detail)}\n`);
  process.exit(1);
}
