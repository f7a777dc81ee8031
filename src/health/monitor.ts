import type { Logger } from 'pino';
import { CheckCancelled, type CheckReport } from './checker.ts';
import type { HealthService } from './health-service.ts';
import type { CheckTarget } from '../model/health.ts';
import { targetKey } from './targets.ts';

export interface MonitorOptions {
  /** Global seconds between checks; a server's own health_check_interval_seconds wins. */
  intervalSeconds: number;
  logger: Logger;
  /** Called after every completed check (the CLI daemon prints them). */
  onReport?: (report: CheckReport) => void;
}

/**
 * Checks every configured server on its interval, embedded in `spyglass serve` (60 s) or as the
 * `spyglass monitor` daemon (30 s). One timer sleeps until the next server is due; the server list
 * is re-read on every wake, so catalog entries added through the API are picked up. Due servers go
 * through the service's limiter, so a slow server delays nobody beyond the concurrency bound.
 */
export class HealthMonitor {
  private timer: NodeJS.Timeout | undefined;
  private readonly nextDue = new Map<string, number>();
  /** Whether each server's last check found it down: the log says so once per transition. */
  private readonly wasDown = new Map<string, boolean>();
  /** Servers whose check is still running: a check slower than the interval is not joined again. */
  private readonly checking = new Set<string>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly abort = new AbortController();
  private stopped = false;
  private started = false;

  constructor(
    private readonly health: HealthService,
    private readonly opts: MonitorOptions,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.opts.logger.info({ intervalSeconds: this.opts.intervalSeconds }, 'health monitor started');
    this.wake();
  }

  /** Stops scheduling, cancels checks in flight (their processes are ended) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await Promise.allSettled([...this.running]);
  }

  /** One pass over every configured server, whatever their schedule. */
  async runOnce(): Promise<CheckReport[]> {
    const targets = await this.health.targets(null);
    const reports = await this.health.checkAll(targets, this.abort.signal);
    for (const r of reports) this.opts.onReport?.(r);
    return reports;
  }

  private wake(): void {
    if (this.stopped) return;
    const tick = this.tick().catch((err: unknown) => {
      this.opts.logger.error({ err }, 'health monitor: could not read the configured servers');
      this.schedule(5000);
    });
    this.track(tick);
  }

  private async tick(): Promise<void> {
    const targets = await this.health.targets(null);
    if (this.stopped) return;
    const now = Date.now();
    const keys = new Set<string>();
    let next = Number.POSITIVE_INFINITY;
    for (const t of targets) {
      const key = targetKey(t.projectId, t.name);
      keys.add(key);
      let due = this.nextDue.get(key) ?? now;
      if (due <= now) {
        due = now + this.health.intervalOf(t, this.opts.intervalSeconds) * 1000;
        // Joining the check still in flight would report its result once more (twice in a row).
        if (!this.checking.has(key)) this.startCheck(key, t);
      }
      this.nextDue.set(key, due);
      next = Math.min(next, due);
    }
    for (const key of this.nextDue.keys()) {
      if (keys.has(key)) continue;
      this.nextDue.delete(key);
      this.wasDown.delete(key);
    }
    // With no servers yet, look again after one interval (catalog entries may appear).
    const wait = Number.isFinite(next) ? next - now : this.opts.intervalSeconds * 1000;
    this.schedule(Math.min(Math.max(wait, 50), this.opts.intervalSeconds * 1000));
  }

  private startCheck(key: string, t: CheckTarget): void {
    this.checking.add(key);
    this.track(
      this.health
        .check(t, this.abort.signal)
        .then(
          (report) => {
            this.logTransition(key, report);
            this.opts.onReport?.(report);
          },
          (err: unknown) => {
            if (!(err instanceof CheckCancelled))
              this.opts.logger.error({ err, server: t.name }, 'health check could not be stored');
          },
        )
        .finally(() => this.checking.delete(key)),
    );
  }

  /** Down (first seen, or after being reachable) and back: one line each, not one per check. */
  private logTransition(key: string, { result }: CheckReport): void {
    const down = result.status === 'down';
    const before = this.wasDown.get(key);
    this.wasDown.set(key, down);
    const fields = { server: result.serverName, project: result.projectId, status: result.status };
    if (down && before !== true)
      this.opts.logger.warn(
        { ...fields, error: result.error },
        `MCP server ${result.serverName} is down: ${result.error ?? 'no answer'}`,
      );
    if (!down && before === true)
      this.opts.logger.info(fields, `MCP server ${result.serverName} is back (${result.status})`);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), ms);
  }

  private track(p: Promise<unknown>): void {
    this.running.add(p);
    p.finally(() => this.running.delete(p)).catch(() => {});
  }
}
