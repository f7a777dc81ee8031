import type { Logger } from 'pino';
import type { CheckReport } from '../../health/checker.ts';
import { targetKey } from '../../health/targets.ts';
import type { HealthResult } from '../../model/health.ts';
import type { AlertSink } from '../../model/alert.ts';
import {
  BASELINE_SAMPLES,
  seedState,
  step,
  type MonitorAction,
  type MonitorRules,
  type ServerState,
} from './monitor-rules.ts';

export interface MonitorAlertsDeps {
  sink: AlertSink;
  rules: MonitorRules;
  /** A server's stored results, newest first (health-repo listResults): the state after a restart. */
  history: (projectId: string, serverName: string, limit: number) => Promise<HealthResult[]>;
  logger: Logger;
}

/**
 * The monitor's alerts (mcp_down, mcp_recovered, schema_drift, high_latency) from every completed
 * health check, whoever ran it: the embedded monitor, `spyglass monitor`, an API check or a scan.
 * State is per (project, server), in memory, seeded from the stored results the first time a server
 * is seen. Reports of one server are applied in order, one at a time (two checks of a server can
 * finish together); the health check never waits for its alerts.
 */
export class MonitorAlerts {
  private readonly states = new Map<string, ServerState>();
  /** The tail of each server's queue of reports. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly deps: MonitorAlertsDeps) {}

  observe(report: CheckReport): void {
    const key = targetKey(report.result.projectId, report.result.serverName);
    const tail = (this.queues.get(key) ?? Promise.resolve())
      .then(() => this.apply(key, report))
      .catch((err: unknown) =>
        this.deps.logger.error(
          { err, server: report.result.serverName, project: report.result.projectId },
          'monitor alerts failed',
        ),
      )
      .finally(() => {
        if (this.queues.get(key) === tail) this.queues.delete(key);
      });
    this.queues.set(key, tail);
  }

  /** Resolves when every report observed so far has been applied (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  /** Forgets a project's servers (the project was deleted). */
  forgetProject(projectId: string): void {
    const prefix = targetKey(projectId, '');
    for (const key of this.states.keys()) if (key.startsWith(prefix)) this.states.delete(key);
  }

  private async apply(key: string, report: CheckReport): Promise<void> {
    const before = this.states.get(key) ?? (await this.seed(report));
    const { state, actions } = step(before, report, this.deps.rules);
    this.states.set(key, state);
    for (const action of actions) await this.perform(action);
  }

  private async seed(report: CheckReport): Promise<ServerState> {
    const r = report.result;
    // The current check is stored already; seedState leaves it out by id.
    const stored = await this.deps.history(r.projectId, r.serverName, BASELINE_SAMPLES * 2);
    return seedState(stored, r.id, this.deps.rules, r.checkedAt ?? new Date());
  }

  private async perform(action: MonitorAction): Promise<void> {
    try {
      if (action.kind === 'fire') await this.deps.sink.fire(action.input);
      else await this.deps.sink.resolveKey(action.projectId, action.dedupKey);
    } catch (err) {
      // One alert lost is logged; the others of this check still go out.
      const what = action.kind === 'fire' ? action.input.dedupKey : action.dedupKey;
      this.deps.logger.error({ err, alert: what }, `monitor alert: ${action.kind} failed`);
    }
  }
}
