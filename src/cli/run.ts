import { Command, CommanderError } from 'commander';
import { spyglassVersion } from '../package-root.ts';
import { escapeHidden } from '../security/poisoning/text.ts';
import { storeErrorText } from '../store/store-error.ts';
import type { CliIo, CliRun } from './io.ts';

const version = spyglassVersion();

/**
 * Every command, loaded only when it runs: `spyglass --version`, `--help` and commands that talk to
 * a server through --url do not load the server's module graph (the store, Fastify, GraphQL...).
 * The descriptions here are the one-line summaries of `spyglass --help`; each command's own help
 * (`spyglass sessions --help`) comes from its module.
 */
const COMMANDS: Record<string, { description: string; load: (cli: CliRun) => Promise<Command> }> = {
  serve: {
    description: 'run the service: REST, GraphQL, OTLP/HTTP and OTLP/gRPC receivers, live events',
    load: async (cli) => {
      // The server owns its process (signal handlers, process.exit on shutdown): never in-process.
      if (!cli.ownsProcess) throw new Error('serve runs only as its own process');
      return new Command('serve')
        .description(
          'run the service: REST, GraphQL, OTLP/HTTP and OTLP/gRPC receivers, live events',
        )
        .action((await import('./serve.ts')).runServe);
    },
  },
  'api-key': {
    description: 'create, list and revoke API keys',
    load: async (cli) => (await import('./api-key.ts')).apiKeyCommand(cli),
  },
  check: {
    description: 'check configured MCP servers once and store the results',
    load: async (cli) => (await import('./check.ts')).checkCommand(cli),
  },
  monitor: {
    description: 'check configured MCP servers on their intervals until stopped',
    load: async (cli) => (await import('./monitor.ts')).monitorCommand(cli),
  },
  sessions: {
    description: 'list recent sessions, or show one session as a span tree (--id)',
    load: async (cli) => (await import('./sessions.ts')).sessionsCommand(cli),
  },
  costs: {
    description: 'cost breakdown by model, tool and agent over a window',
    load: async (cli) => (await import('./costs.ts')).costsCommand(cli),
  },
  scorecard: {
    description: 'grade configured MCP servers (A+ to F) from stored history',
    load: async (cli) => (await import('./scorecard.ts')).scorecardCommand(cli),
  },
  scan: {
    description: 'scan configured MCP servers for security problems and store the results',
    load: async (cli) => (await import('./scan.ts')).scanCommand(cli),
  },
  slos: {
    description: 'evaluate the SLOs of a project now, or list them (--definitions)',
    load: async (cli) => (await import('./slos.ts')).slosCommand(cli),
  },
  alerts: {
    description: 'list the alert inbox, or ack / resolve / snooze an alert',
    load: async (cli) => (await import('./alerts.ts')).alertsCommand(cli),
  },
  prevention: {
    description: 'read and change the prevention config the SDK enforces',
    load: async (cli) => (await import('./prevention.ts')).preventionCommand(cli),
  },
};

/** A program with the same name and parsing rules as the one users see (usage lines read `spyglass <command>`). */
const newProgram = (): Command =>
  new Command()
    .name('spyglass')
    .showHelpAfterError()
    // Options after a subcommand belong to it: `alerts ack ID --url U` must reach ack, not the listing.
    .enablePositionalOptions();

/**
 * Runs one command line (`argv` without node and the script) with `io`; resolves with the exit code.
 * With the process's io (src/cli/main.ts) an error exits at once, as it always has; in-process
 * (`ownsProcess` unset) nothing exits: every outcome, usage errors and `--help` included, is the
 * returned code and what was written to io.stdout / io.stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const cli: CliRun = { ...io, exitCode: 0 };
  const program = withIo(
    newProgram()
      .version(version, '-V, --version', 'print the version and exit')
      .description(
        'Observability and runtime reliability for AI agents and the MCP servers they call',
      ),
    io,
  );
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
        const real = withIo(newProgram().addCommand(await load(cli)), io);
        await real.parseAsync([name, ...stub.args], { from: 'user' });
      });
  }
  // `spyglass help <command>` would print the stand-in's help: ask the real command instead.
  const args =
    argv[0] === 'help' && argv[1] !== undefined && argv[1] in COMMANDS
      ? [argv[1], '--help']
      : [...argv];
  try {
    await program.parseAsync(args, { from: 'user' });
    return cli.exitCode;
  } catch (err) {
    return exit(io, await failure(err, io));
  }
}

/** The exit code of a failed run, its message written to stderr (commander has written its own). */
async function failure(err: unknown, io: CliIo): Promise<number> {
  // --help, --version, usage errors and `cmd.error()`: commander printed them, we only exit.
  if (err instanceof CommanderError) return err.exitCode;
  if ((err as Error).name === 'ConfigError') {
    io.stderr.write(`spyglass: ${escapeHidden((err as Error).message)}\n`);
    return 2;
  }
  const { SpyglassError } = await import('../errors.ts');
  // A failed statement's message is its SQL and parameters: only its SQLSTATE is printed.
  const detail =
    err instanceof SpyglassError && err.issues
      ? err.issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ')
      : (storeErrorText(err) ?? (err as Error).message);
  io.stderr.write(`spyglass: ${escapeHidden(detail)}\n`);
  return 1;
}

/** The real process exits at once (as commander and the error paths always did); in-process returns. */
function exit(io: CliIo, code: number): number {
  if (io.ownsProcess) process.exit(code);
  return code;
}

/**
 * Commander writes help and usage errors to the io and throws instead of exiting, on every command
 * of the tree (commands a module builds with `new Command` do not inherit the root's settings).
 * In-process, help is laid out as for a pipe: default width, no colours.
 */
function withIo(cmd: Command, io: CliIo): Command {
  cmd.exitOverride().configureOutput({
    writeOut: (s) => io.stdout.write(s),
    writeErr: (s) => io.stderr.write(s),
    ...(io.ownsProcess
      ? {}
      : {
          getOutHelpWidth: () => 80,
          getErrHelpWidth: () => 80,
          getOutHasColors: () => false,
          getErrHasColors: () => false,
        }),
  });
  for (const sub of cmd.commands) withIo(sub, io);
  return cmd;
}
