import type { AuditLog } from '../audit/audit-log.ts';
import { enforce } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { SETTING_NAMES, type InstanceSettings } from '../model/settings.ts';
import type { Db } from '../store/db.ts';
import { readSettings, writeSetting } from '../store/settings-repo.ts';

export type { InstanceSettings };

const DEFAULTS: InstanceSettings = { redactPayloads: false };

/**
 * Instance settings (docs/ingest.md#redaction), for every adapter: anyone reads, an admin bound to
 * no project changes them, and every change is audited here. Cached in memory: redaction is read on
 * every ingest.
 */
export class SettingsService {
  private current: InstanceSettings = { ...DEFAULTS };

  constructor(
    private readonly db: Db,
    private readonly audit: AuditLog,
    /** Called after a change is stored (other instances reload their copy). */
    private readonly onChanged: () => void = () => {},
  ) {}

  async load(): Promise<void> {
    const stored = await readSettings(this.db);
    this.current = { ...DEFAULTS, redactPayloads: stored[SETTING_NAMES.redactPayloads] === true };
  }

  get(by: Principal): InstanceSettings {
    enforce(by, 'read');
    return { ...this.current };
  }

  get redactPayloads(): boolean {
    return this.current.redactPayloads;
  }

  /** Applies the settings given (undefined leaves one as it is); an empty change is still audited. */
  async update(by: Principal, patch: Partial<InstanceSettings>): Promise<InstanceSettings> {
    enforce(by, 'global-admin');
    const changed = (Object.keys(DEFAULTS) as (keyof InstanceSettings)[]).filter(
      (k) => patch[k] !== undefined,
    );
    for (const key of changed) await writeSetting(this.db, SETTING_NAMES[key], patch[key]);
    for (const key of changed) this.current[key] = patch[key] as boolean;
    this.onChanged();
    this.audit.record(
      by,
      'settings.updated',
      `settings:${changed.map((k) => SETTING_NAMES[k]).join(',')}`,
    );
    return { ...this.current };
  }
}
