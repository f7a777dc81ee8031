import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { storedJsonIssues } from '../normalize/json-limits.ts';
import type { AlertConfigRow } from '../store/alerts-repo.ts';
import {
  ALERT_TYPES,
  DEFAULT_TOGGLES,
  type AlertConfig,
  type AlertType,
  type WebhookSource,
} from '../model/alert.ts';
import { maskWebhook } from './webhook.ts';

/**
 * Per-project alert config (docs/alerts.md): chat toggles (saved keys over DEFAULT_TOGGLES) and the
 * chat webhook, resolved saved value → config file `alerts.chat_webhook` → env
 * SPYGLASS_CHAT_WEBHOOK. The webhook is a secret: views carry whether one is set, where it comes
 * from and a masked form, never the URL.
 */

/** What a POST may change: absent keys keep their saved values. */
export interface AlertConfigPatch {
  alertTypes: Partial<Record<AlertType, boolean>>;
  /** undefined: keep; null: clear the saved webhook; string: save it. */
  chatWebhook: string | null | undefined;
}

export function toggles(row: AlertConfigRow | undefined): Record<AlertType, boolean> {
  return {
    ...DEFAULT_TOGGLES,
    ...((row?.alertTypes ?? {}) as Partial<Record<AlertType, boolean>>),
  };
}

export function resolveWebhook(
  row: AlertConfigRow | undefined,
  fromFile: string | undefined,
  fromEnv: string | undefined,
): { url: string; source: WebhookSource } | null {
  if (row?.chatWebhook) return { url: row.chatWebhook, source: 'settings' };
  if (fromFile) return { url: fromFile, source: 'config' };
  if (fromEnv) return { url: fromEnv, source: 'env' };
  return null;
}

export function configView(
  row: AlertConfigRow | undefined,
  webhook: { url: string; source: WebhookSource } | null,
): AlertConfig {
  return {
    alertTypes: toggles(row),
    chatWebhookConfigured: webhook !== null,
    chatWebhookSource: webhook?.source ?? null,
    chatWebhookMasked: webhook ? maskWebhook(webhook.url) : null,
  };
}

/** Validates a POST body; every problem is a 422 issue naming its field. */
export function parseConfigBody(body: unknown): AlertConfigPatch {
  const issues: ValidationIssue[] = [];
  const patch: AlertConfigPatch = { alertTypes: {}, chatWebhook: undefined };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SpyglassError('validation', 'invalid body', {
      issues: [{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }],
    });
  }
  const tooLarge = storedJsonIssues(body, ['body']);
  if (tooLarge.length > 0)
    throw new SpyglassError('validation', 'invalid alert config', { issues: tooLarge });
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (
      ![
        'alert_types',
        'chat_webhook',
        'chat_webhook_configured',
        'chat_webhook_source',
        'chat_webhook_masked',
      ].includes(key)
    ) {
      issues.push({
        loc: ['body', key],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      });
    }
  }
  if (b.alert_types !== undefined) {
    if (
      typeof b.alert_types !== 'object' ||
      b.alert_types === null ||
      Array.isArray(b.alert_types)
    ) {
      issues.push({
        loc: ['body', 'alert_types'],
        msg: 'Input should be an object of booleans keyed by alert type',
        type: 'dict_type',
      });
    } else {
      for (const [k, v] of Object.entries(b.alert_types)) {
        if (!(ALERT_TYPES as readonly string[]).includes(k))
          issues.push({
            loc: ['body', 'alert_types', k],
            msg: `Unknown alert type; known: ${ALERT_TYPES.join(', ')}`,
            type: 'enum',
          });
        else if (typeof v !== 'boolean')
          issues.push({
            loc: ['body', 'alert_types', k],
            msg: 'Input should be a valid boolean',
            type: 'bool_type',
          });
        else patch.alertTypes[k as AlertType] = v;
      }
    }
  }
  if (b.chat_webhook === null || b.chat_webhook === '') patch.chatWebhook = null;
  else if (typeof b.chat_webhook === 'string') patch.chatWebhook = b.chat_webhook.trim();
  else if (b.chat_webhook !== undefined)
    issues.push({
      loc: ['body', 'chat_webhook'],
      msg: 'Input should be a URL string or null',
      type: 'string_type',
    });
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid alert config', { issues });
  return patch;
}
