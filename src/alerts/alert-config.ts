import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { storedJsonIssues } from '../normalize/json-limits.ts';
import type { AlertConfigRow } from '../store/alerts-repo.ts';
import {
  ALERT_TYPES,
  DEFAULT_TOGGLES,
  type AlertConfig,
  type AlertConfigPatch,
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

/** An AlertConfigPatch once checked: known alert types only; chatWebhook undefined keeps, null clears. */
export interface CheckedConfigPatch {
  alertTypes: Partial<Record<AlertType, boolean>>;
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

/**
 * Checks a patch's values for every adapter: its size as stored JSON, then each toggle's alert type;
 * every problem is a 422 issue naming its field (docs/alerts.md). The webhook is trimmed; "" clears.
 */
export function checkConfigPatch(patch: AlertConfigPatch): CheckedConfigPatch {
  const tooLarge = storedJsonIssues(patch, ['body']);
  if (tooLarge.length > 0)
    throw new SpyglassError('validation', 'invalid alert config', { issues: tooLarge });
  const issues: ValidationIssue[] = [];
  const alertTypes: Partial<Record<AlertType, boolean>> = {};
  for (const [k, v] of Object.entries(patch.alertTypes ?? {})) {
    if (isAlertType(k)) alertTypes[k] = v;
    else
      issues.push({
        loc: ['body', 'alert_types', k],
        msg: `Unknown alert type; known: ${ALERT_TYPES.join(', ')}`,
        type: 'enum',
      });
  }
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid alert config', { issues });
  const w = patch.chatWebhook;
  return { alertTypes, chatWebhook: w === null || w === '' ? null : w?.trim() };
}

const isAlertType = (k: string): k is AlertType => (ALERT_TYPES as readonly string[]).includes(k);
