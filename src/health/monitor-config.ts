import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../config/load-config.ts';
import type { Config } from '../config/types.ts';

/**
 * The `monitor:` section of spyglass.yaml (spec §2.13). Read here, beside the checker, until the
 * shared config loader carries it; validated once, every problem reported together.
 *
 *   monitor:
 *     enabled: true                       # the monitor embedded in `spyglass serve`
 *     health_check_interval_seconds: 60   # global interval; servers[].health_check_interval_seconds wins
 *     concurrency: 16                     # checks running at once in one process
 */
export interface MonitorConfig {
  enabled: boolean;
  intervalSeconds: number;
  concurrency: number;
}

export const DEFAULT_MONITOR: MonitorConfig = { enabled: true, intervalSeconds: 60, concurrency: 16 };
export const DEFAULT_TIMEOUT_SECONDS = 5;

export function readMonitorConfig(config: Pick<Config, 'configPath'>): MonitorConfig {
  if (!config.configPath) return { ...DEFAULT_MONITOR };
  let file: unknown;
  try {
    file = parseYaml(readFileSync(config.configPath, 'utf8'));
  } catch {
    return { ...DEFAULT_MONITOR }; // loadConfig already reported an unreadable file
  }
  const raw = (file as { monitor?: unknown } | null)?.monitor;
  if (raw === undefined || raw === null) return { ...DEFAULT_MONITOR };
  const problems: string[] = [];
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(['monitor must be a mapping']);
  const m = raw as Record<string, unknown>;
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const v = m[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      problems.push(`monitor.${key} must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
      return fallback;
    }
    return v;
  };
  const enabled = m.enabled ?? true;
  if (typeof enabled !== 'boolean') problems.push('monitor.enabled must be true or false');
  const out: MonitorConfig = {
    enabled: enabled !== false,
    intervalSeconds: int('health_check_interval_seconds', DEFAULT_MONITOR.intervalSeconds, 1, 86_400),
    concurrency: int('concurrency', DEFAULT_MONITOR.concurrency, 1, 1000),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
