import { Command, InvalidArgumentError } from 'commander';
import type { CheckReport } from '../health/checker.ts';
import { toCheckJson } from '../model/health.ts';
import { NO_SERVERS, printCheckRows } from './check.ts';
import type { CliRun } from './io.ts';
import { escapeLine, jsonText } from './output.ts';
import { callApi, remoteFrom } from './remote.ts';
import { withLocal, checkKit } from './local.ts';

/**
 * `spyglass monitor`: the health monitor as a standalone daemon (default every 30 s, docs/health.md#monitor-and-cli), or
 * one pass with --once. It writes to the database like `serve` does; with the embedded PGlite
 * database that `serve` holds, run it with --url against the server instead.
 */
export function monitorCommand(cli: CliRun): Command {
  return new Command('monitor')
    .description('check configured MCP servers on their intervals until stopped (SIGINT/SIGTERM)')
    .option(
      '--interval <seconds>',
      'seconds between checks of each server (servers[].health_check_interval_seconds wins)',
      seconds,
      30,
    )
    .option('--once', 'run one pass over every server and exit; exit code 1 if any is down')
    .option('--json', 'print one JSON object per check (JSON lines) instead of text')
    .option(
      '--url <url>',
      'drive a running server (POST /api/health/check) instead of the database (env SPYGLASS_URL)',
    )
    .option('--api-key <key>', 'admin key for --url (env SPYGLASS_API_KEY)')
    .action(
      async (o: {
        interval: number;
        once?: boolean;
        json?: boolean;
        url?: string;
        apiKey?: string;
      }) => {
        const print = (row: Record<string, unknown>) => printLine(cli, row, o.json ?? false);
        const remote = remoteFrom(o, cli.env);
        if (remote) {
          const pass = async () =>
            (await callApi(remote, 'POST', '/api/health/check', {})) as Record<string, unknown>[];
          if (o.once) return finishOnce(cli, await pass(), o.json ?? false);
          return runUntilSignal(cli, async (signal) => {
            while (!signal.aborted) {
              (
                await pass().catch((err: unknown) => [
                  { server_name: '-', status: 'error', error: (err as Error).message },
                ])
              ).forEach(print);
              await sleep(o.interval * 1000, signal);
            }
          });
        }
        // Loaded here so that other commands start without the checker.
        const { startEmbeddedHealth } = await import('../health/embedded.ts');
        const { HealthMonitor } = await import('../health/monitor.ts');
        await withLocal(cli, checkKit, async (s) => {
          if (o.once) {
            const reports = await new HealthMonitor(s.health, {
              intervalSeconds: o.interval,
              logger: s.logger,
            }).runOnce();
            return finishOnce(cli, reports.map(toCheckJson), o.json ?? false);
          }
          const bg = startEmbeddedHealth(s.health, s.logger, {
            forceMonitor: true,
            intervalSeconds: o.interval,
            onReport: (r: CheckReport) => print(toCheckJson(r)),
          });
          cli.stderr.write(`spyglass monitor: checking every ${o.interval} s (Ctrl-C to stop)\n`);
          await runUntilSignal(cli, async (signal) => {
            await new Promise((resolve) =>
              signal.addEventListener('abort', resolve, { once: true }),
            );
          });
          await bg.stop();
        });
      },
    );
}

/** --once: a table for people, or JSON lines (one object per check, like the daemon) with --json. */
function finishOnce(cli: CliRun, rows: Record<string, unknown>[], json: boolean): void {
  if (rows.length === 0) cli.stderr.write(NO_SERVERS);
  if (json) rows.forEach((r) => printLine(cli, r, true));
  else printCheckRows(cli, rows, false);
  if (rows.some((r) => r.status === 'down')) cli.exitCode = 1;
}

function printLine(cli: CliRun, row: Record<string, unknown>, json: boolean): void {
  if (json) {
    cli.stdout.write(`${jsonText(row)}\n`);
    return;
  }
  const latency = typeof row.latency_ms === 'number' ? `${row.latency_ms.toFixed(0)} ms` : '-';
  const tools = row.tools_count ?? '-';
  const when = typeof row.checked_at === 'string' ? row.checked_at : new Date().toISOString();
  cli.stdout.write(
    `${when}  ${escapeLine(String(row.server_name))}  ${String(row.status)}  ${latency}  tools=${String(tools)}${row.error ? `  ${escapeLine(String(row.error))}` : ''}\n`,
  );
}

/**
 * Runs `fn` with a signal that aborts on the first SIGINT/SIGTERM (the real process), or when the
 * in-process run's own signal aborts (io.signal): an in-process run never listens to the process's
 * signals, which belong to whoever runs it.
 */
async function runUntilSignal(
  cli: CliRun,
  fn: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  if (cli.signal) {
    if (cli.signal.aborted) stop();
    else cli.signal.addEventListener('abort', stop, { once: true });
  } else if (cli.ownsProcess) {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } else {
    throw new Error('monitor without --once runs until stopped: give the in-process run a signal');
  }
  try {
    await fn(ac.signal);
  } finally {
    cli.signal?.removeEventListener('abort', stop);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function seconds(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 86_400)
    throw new InvalidArgumentError('an integer number of seconds from 1 to 86400');
  return n;
}
