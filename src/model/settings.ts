/** Instance settings as services return them (docs/ingest.md#redaction). */
export interface InstanceSettings {
  /** Drop tool inputs and outputs at ingest (docs/ingest.md#redaction). */
  redactPayloads: boolean;
}

/** Each setting's name in the API's JSON (GET /api/settings) and in the audit log. */
export const SETTING_NAMES: Readonly<Record<keyof InstanceSettings, string>> = {
  redactPayloads: 'redact_payloads',
};

/** The API's JSON for the settings (GET /api/settings). */
export function toSettingsJson(s: InstanceSettings) {
  return { redact_payloads: s.redactPayloads };
}
