import type { SecurityConfig } from '../../config/types.ts';
import type { GuardedFetch } from '../../net/guarded-fetch.ts';
import {
  DEFAULT_LIMITS,
  extendAdvisoryDb,
  parseAdvisoryBytes,
  type ReadLimits,
} from './osv-load.ts';
import type { AdvisoryDb } from './osv-types.ts';

/**
 * Optional refresh of the advisory set from `security.advisories_url` (off unless set): one OSV
 * JSON document or export zip, fetched through the outbound policy (docs/security.md#advisory-file-format-and-settings), bounded in
 * size and time, applied over the last good set. A failed refresh keeps that set and says why;
 * errors name the rule or status, never echo what the server answered.
 */
export interface RefreshOptions {
  maxBytes?: number;
  timeoutMs?: number;
  limits?: ReadLimits;
  signal?: AbortSignal;
}

export type RefreshOutcome =
  | { status: 'updated'; db: AdvisoryDb; records: number }
  | { status: 'failed'; db: AdvisoryDb; error: string };

const MAX_BYTES = 256 * 1024 * 1024;
const TIMEOUT_MS = 120_000;

export async function refreshAdvisories(
  url: string,
  guardedFetch: GuardedFetch,
  lastGood: AdvisoryDb,
  opts: RefreshOptions = {},
): Promise<RefreshOutcome> {
  const maxBytes = opts.maxBytes ?? MAX_BYTES;
  const signals = [
    AbortSignal.timeout(opts.timeoutMs ?? TIMEOUT_MS),
    ...(opts.signal ? [opts.signal] : []),
  ];
  try {
    const res = await guardedFetch(url, { signal: AbortSignal.any(signals), redirect: 'follow' });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`the server answered HTTP ${res.status}`);
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new Error(
        `the download is ${declared} bytes, more than the limit of ${maxBytes} bytes`,
      );
    }
    const bytes = await readBounded(res, maxBytes);
    const records = parseAdvisoryBytes(bytes, url, opts.limits ?? DEFAULT_LIMITS);
    return {
      status: 'updated',
      db: extendAdvisoryDb(lastGood, records, url),
      records: records.length,
    };
  } catch (e) {
    const err = e as Error;
    const why = err.name === 'TimeoutError' ? 'timed out' : err.message;
    return { status: 'failed', db: lastGood, error: `advisory refresh from ${url} failed: ${why}` };
  }
}

async function readBounded(res: Response, maxBytes: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`the download is more than the limit of ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The current set, refreshed when due: the scan service asks before each scan run (no timers of its own). */
export interface AdvisoryRefresher {
  current(): AdvisoryDb;
  /** Refreshes when advisories_url is set and advisories_refresh_hours have passed since the last attempt; null when not due. */
  refreshIfDue(now: Date): Promise<RefreshOutcome | null>;
}

export function createAdvisoryRefresher(
  cfg: Pick<SecurityConfig, 'advisoriesUrl' | 'advisoriesRefreshHours'>,
  guardedFetch: GuardedFetch,
  initial: AdvisoryDb,
  opts: RefreshOptions = {},
): AdvisoryRefresher {
  let db = initial;
  let lastAttempt: number | null = null;
  let inFlight: Promise<RefreshOutcome> | null = null;
  return {
    current: () => db,
    refreshIfDue: async (now) => {
      const url = cfg.advisoriesUrl;
      if (url === undefined) return null;
      if (inFlight) return inFlight;
      if (
        lastAttempt !== null &&
        now.getTime() - lastAttempt < cfg.advisoriesRefreshHours * 3_600_000
      )
        return null;
      lastAttempt = now.getTime();
      inFlight = refreshAdvisories(url, guardedFetch, db, opts);
      try {
        const outcome = await inFlight;
        db = outcome.db;
        return outcome;
      } finally {
        inFlight = null;
      }
    },
  };
}
