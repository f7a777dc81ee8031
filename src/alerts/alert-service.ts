import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { Config } from '../config/types.ts';
import { SpyglassError } from '../errors.ts';
import type { EventBus } from '../live/bus.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Outbound } from '../net/guarded-fetch.ts';
import {
  deleteOldAlerts,
  findAlert,
  findAlertConfig,
  insertAlert,
  resolveByKey,
  saveAlertConfig,
  setDelivery,
  toAlert,
  wakeSnoozed,
  type Delivery,
} from '../store/alerts-repo.ts';
import type { Db } from '../store/db.ts';
import { checkConfigPatch, configView, resolveWebhook, toggles } from './alert-config.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { chatMessage, testMessage } from './chat-message.ts';
import { DEFAULT_RETRY, DeliveryQueue, sendWithRetry, type RetryPolicy } from './delivery.ts';
import {
  countAlerts,
  readInbox,
  transition,
  type InboxPage,
  type InboxQuery,
  type Transition,
} from './inbox.ts';
import type {
  Alert,
  AlertConfig,
  AlertConfigPatch,
  AlertCounts,
  AlertSink,
  FireInput,
  WebhookTestResult,
} from '../model/alert.ts';
import { WebhookClient } from './webhook.ts';

export interface AlertServiceDeps {
  config: Config;
  db: Db;
  bus: EventBus;
  logger: Logger;
  metrics: Metrics;
  audit: AuditLog;
  /** The process's outbound policy and fetch: webhooks obey them. */
  outbound: Outbound;
  now?: () => Date;
}

const MAX_PENDING = 1000;
const CONCURRENT_POSTS = 4;
const CLOSE_WAIT_MS = 15_000;

/**
 * The alert pipeline (docs/alerts.md, docs/alert-producers.md): every producer fires through here. A fire writes the
 * inbox row (deduplicated in the database, so concurrent fires give one row), publishes
 * `alert:fired` with the snake_case record, and queues chat delivery; the producer never waits
 * for the chat. The outcome of delivery is written back to the alert.
 */
export class AlertService implements AlertSink {
  /** The clock every decision uses (fired_at, snooze ends); tests replace it. */
  now: () => Date;
  /** Delivery retries; tests shorten the waits. */
  retry: RetryPolicy = DEFAULT_RETRY;
  readonly webhooks: WebhookClient;
  private readonly queue: DeliveryQueue;
  /** fire() calls not yet settled: close() waits for them, so none writes to a closed store. */
  private readonly firing = new Set<Promise<unknown>>();

  constructor(private readonly d: AlertServiceDeps) {
    this.now = d.now ?? (() => new Date());
    this.webhooks = new WebhookClient(d.outbound.policy, undefined, d.outbound.fetch);
    this.queue = new DeliveryQueue(MAX_PENDING, CONCURRENT_POSTS, (err) =>
      d.logger.error({ err: (err as Error).message }, 'alert delivery failed unexpectedly'),
    );
  }

  fire(input: FireInput): Promise<Alert | null> {
    const p = this.fireNow(input);
    this.firing.add(p);
    const done = () => this.firing.delete(p);
    p.then(done, done);
    return p;
  }

  private async fireNow(input: FireInput): Promise<Alert | null> {
    const now = this.now();
    const row = await insertAlert(
      this.d.db,
      {
        id: randomUUID(),
        projectId: input.projectId,
        type: input.type,
        severity: input.severity,
        title: input.title,
        message: input.message,
        serverName: input.serverName ?? null,
        agentName: input.agentName ?? null,
        sessionId: input.sessionId ?? null,
        dedupKey: input.dedupKey,
        status: 'firing',
        firedAt: now,
        fields: input.fields ?? {},
        delivery: 'pending',
        deliveryAttempts: 0,
      },
      input.dedupScope === 'forever',
    );
    if (!row) {
      this.d.metrics.alertsDeduplicated.inc({ type: input.type });
      return null;
    }
    const alert = toAlert(row, now);
    this.d.metrics.alertsFired.inc({ type: alert.type });
    this.d.bus.publish({ type: 'alert:fired', data: alert });
    this.queue.push(
      () => this.deliver(alert),
      async () => {
        this.d.logger.warn(
          { alertId: alert.id, type: alert.type },
          `alert delivery queue full (${MAX_PENDING} pending): oldest delivery dropped`,
        );
        await this.record(alert.id, 'failed', 'dropped: the delivery queue was full', 0);
      },
    );
    return alert;
  }

  resolveKey(projectId: string, dedupKey: string): Promise<number> {
    return resolveByKey(this.d.db, projectId, dedupKey, this.now());
  }

  /** The caller's project: a bound key's own, else the one named, else `default`. */
  private project(by: Principal, requested: string | null | undefined): string {
    return scopeProject(by, requested) ?? DEFAULT_PROJECT;
  }

  /** The inbox, newest first (any role); the query's values are checked here for every adapter. */
  inbox(by: Principal, q: InboxQuery & { projectId?: string | null }): Promise<InboxPage> {
    enforce(by, 'read');
    return readInbox(this.d.db, this.project(by, q.projectId), q, this.now());
  }

  /** One alert of the caller's project (any role; a shared link opens it), or null. */
  async get(by: Principal, id: string, projectId?: string | null): Promise<Alert | null> {
    enforce(by, 'read');
    const row = await findAlert(this.d.db, this.project(by, projectId), id);
    return row ? toAlert(row, this.now()) : null;
  }

  counts(by: Principal, projectId?: string | null): Promise<AlertCounts> {
    enforce(by, 'read');
    return countAlerts(this.d.db, this.project(by, projectId), this.now());
  }

  /** Acknowledge, resolve or snooze one alert of the caller's project (admins). */
  move(by: Principal, id: string, t: Transition, projectId?: string | null): Promise<Alert> {
    enforce(by, 'write');
    return transition(this.d.db, this.project(by, projectId), id, t, this.now());
  }

  async getConfig(by: Principal, projectId?: string | null): Promise<AlertConfig> {
    enforce(by, 'read');
    const row = await findAlertConfig(this.d.db, this.project(by, projectId));
    return configView(row, this.webhookFor(row));
  }

  /** Validates, checks a new webhook against the outbound policy (no traffic), saves, audits without the URL. */
  async saveConfig(
    by: Principal,
    change: AlertConfigPatch,
    projectId?: string | null,
  ): Promise<AlertConfig> {
    enforce(by, 'write');
    const project = this.project(by, projectId);
    const patch = checkConfigPatch(change);
    if (typeof patch.chatWebhook === 'string') {
      const checked = this.webhooks.check(patch.chatWebhook);
      if (!checked.ok) {
        throw new SpyglassError('validation', 'invalid alert config', {
          issues: [
            {
              loc: ['body', 'chat_webhook'],
              msg: `refused by the outbound URL policy: ${checked.reason}`,
              type: 'url_policy',
            },
          ],
        });
      }
    }
    const row = await findAlertConfig(this.d.db, project);
    const next = {
      projectId: project,
      alertTypes: { ...((row?.alertTypes ?? {}) as object), ...patch.alertTypes },
      chatWebhook: patch.chatWebhook === undefined ? (row?.chatWebhook ?? null) : patch.chatWebhook,
      updatedAt: this.now(),
    };
    await saveAlertConfig(this.d.db, next);
    this.d.audit.record(by, 'alerts.config_saved', `alerts/config/${project}`, 'success', project);
    return configView(next, this.webhookFor(next));
  }

  /** Sends the test message to the resolved webhook once (no retries): the caller sees the result now. */
  async test(by: Principal, projectId?: string | null): Promise<WebhookTestResult> {
    enforce(by, 'write');
    const project = this.project(by, projectId);
    const webhook = this.webhookFor(await findAlertConfig(this.d.db, project));
    if (!webhook)
      return {
        ok: false,
        error:
          'no chat webhook configured (save one, or set alerts.chat_webhook or SPYGLASS_CHAT_WEBHOOK)',
      };
    const out = await this.webhooks.post(webhook.url, testMessage(project, this.now()));
    return out.ok ? { ok: true } : { ok: false, error: out.error ?? 'webhook failed' };
  }

  /** Snoozes that ended become firing rows (reads already show them so). */
  wake(): Promise<number> {
    return wakeSnoozed(this.d.db, this.now());
  }

  /** Resolved alerts older than `days` go (spec: kept 90 days for audit). */
  prune(days: number): Promise<number> {
    return deleteOldAlerts(this.d.db, new Date(this.now().getTime() - days * 86_400_000));
  }

  /** Waits for alerts being fired, then for queued chat deliveries up to a bound, so a CLI's last alerts leave. */
  async close(waitMs = CLOSE_WAIT_MS): Promise<void> {
    await Promise.allSettled([...this.firing]);
    if (!(await this.queue.drain(waitMs)))
      this.d.logger.warn(
        { pending: this.queue.size },
        'alert deliveries still pending at shutdown',
      );
  }

  private webhookFor(row: Parameters<typeof resolveWebhook>[0]) {
    return resolveWebhook(row, this.d.config.alerts.chatWebhook, this.d.config.chatWebhook);
  }

  private async deliver(alert: Alert): Promise<void> {
    const row = await findAlertConfig(this.d.db, alert.projectId);
    const webhook = this.webhookFor(row);
    if (!toggles(row)[alert.type] || !webhook) {
      await this.record(alert.id, 'skipped', null, 0);
      return;
    }
    const res = await sendWithRetry(this.webhooks, webhook.url, chatMessage(alert), this.retry);
    if (!res.ok)
      this.d.logger.warn(
        { alertId: alert.id, type: alert.type, attempts: res.attempts, error: res.error },
        'alert chat delivery failed',
      );
    await this.record(alert.id, res.ok ? 'sent' : 'failed', res.error, res.attempts);
  }

  private async record(
    id: string,
    outcome: Delivery,
    error: string | null,
    attempts: number,
  ): Promise<void> {
    this.d.metrics.alertDeliveries.inc({ outcome });
    await setDelivery(this.d.db, id, outcome, error, attempts);
  }
}
