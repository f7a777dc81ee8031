import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { ConfigError } from '../config/load-config.ts';
import { SpyglassError } from '../errors.ts';
import { escapeHidden } from '../security/poisoning/text.ts';
import { storeErrorText } from '../store/store-error.ts';
import { alertsCommand } from './alerts.ts';
import { apiKeyCommand } from './api-key.ts';
import { checkCommand } from './check.ts';
import { monitorCommand } from './monitor.ts';
import { scanCommand } from './scan.ts';
import { scorecardCommand } from './scorecard.ts';
import { sessionsCommand } from './sessions.ts';
import { costsCommand } from './costs.ts';
import { slosCommand } from './slos.ts';
import { preventionCommand } from './prevention.ts';
import { runServe } from './serve.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command()
  .name('spyglass')
  .version(version, '-V, --version', 'print the version and exit')
  .description('Observability and runtime reliability for AI agents and the MCP servers they call')
  .showHelpAfterError()
  // Options after a subcommand belong to it: `alerts ack ID --url U` must reach ack, not the listing.
  .enablePositionalOptions();

program
  .command('serve')
  .description('run the service: REST, GraphQL, OTLP/HTTP and OTLP/gRPC receivers, live events')
  .action(runServe);

program.addCommand(apiKeyCommand());
program.addCommand(checkCommand());
program.addCommand(monitorCommand());
program.addCommand(sessionsCommand());
program.addCommand(costsCommand());
program.addCommand(scorecardCommand());
program.addCommand(scanCommand());
program.addCommand(slosCommand());
program.addCommand(alertsCommand());
program.addCommand(preventionCommand());

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`spyglass: ${escapeHidden(err.message)}\n`);
    process.exit(2);
  }
  // A failed statement's message is its SQL and parameters: only its SQLSTATE is printed.
  const detail = err instanceof SpyglassError && err.issues ? err.issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ') : (storeErrorText(err) ?? (err as Error).message);
  process.stderr.write(`spyglass: ${escapeHidden(detail)}\n`);
  process.exit(1);
}
