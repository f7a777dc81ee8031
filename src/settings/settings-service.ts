import type { Db } from '../store/db.ts';
import { readSettings, writeSetting } from '../store/settings-repo.ts';
import { SpyglassError } from '../errors.ts';

/** Instance settings (docs/ingest.md#redaction). Cached in memory: redaction is read on every ingest. */
export interface InstanceSettings {
  redact_payloads: boolean;
}

const DEFAULTS: InstanceSettings = { redact_payloads: false };

export class SettingsService {
  private current: InstanceSettings = { ...DEFAULTS };

  constructor(
    private readonly db: Db,
    /** Called after a change is stored (other instances reload their copy). */
    private readonly onChanged: () => void = () => {},
  ) {}

  async load(): Promise<void> {
    const stored = await readSettings(this.db);
    this.current = { ...DEFAULTS, redact_payloads: stored.redact_payloads === true };
  }

  get(): InstanceSettings {
    return { ...this.current };
  }

  get redactPayloads(): boolean {
    return this.current.redact_payloads;
  }

  /** Applies the fields sent; unknown fields and wrong types are a 422. */
  async update(patch: unknown): Promise<InstanceSettings> {
    if (!patch || typeof patch !== 'object' || Array.isArray(patch)) {
      throw new SpyglassError('validation', 'invalid settings', {
        issues: [{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }],
      });
    }
    const entries = Object.entries(patch);
    for (const [key, value] of entries) {
      if (!(key in DEFAULTS)) {
        throw new SpyglassError('validation', 'invalid settings', {
          issues: [{ loc: ['body', key], msg: 'Unknown setting', type: 'extra_forbidden' }],
        });
      }
      if (typeof value !== typeof DEFAULTS[key as keyof InstanceSettings]) {
        throw new SpyglassError('validation', 'invalid settings', {
          issues: [
            { loc: ['body', key], msg: 'Input should be a valid boolean', type: 'bool_type' },
          ],
        });
      }
    }
    for (const [key, value] of entries) await writeSetting(this.db, key, value);
    this.current = { ...this.current, ...(patch as Partial<InstanceSettings>) };
    this.onChanged();
    return this.get();
  }
}
