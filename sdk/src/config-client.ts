/**
 * Prevention config from the backend, per agent: fetched when a session of that agent starts
 * (bounded wait) and re-read in the background. The config in force is the backend's latest stored
 * config for the agent (its override or the project default) when the backend ever answered with
 * one, else the constructor's. An answer with `id: null` means nothing is stored: the spec defaults
 * the API fills in are not values from the backend, so the constructor's config applies (and a
 * deleted config falls back to it); so does a 404 (the backend stores nothing for the agent nor as
 * the project default). Fail-open: an unreachable backend or a 401 keeps the last known config
 * and is logged once.
 */
import { PREVENTION_FIELDS, validatePrevention, type PreventionConfig } from './config.ts';
import { request } from './http.ts';
import type { SdkLogger } from './types.ts';

export interface ConfigClientOptions {
  url: string;
  apiKey: string | undefined;
  projectId: string | undefined;
  refreshMs: number;
  logger: SdkLogger;
  fallback: Readonly<PreventionConfig>;
}

/** How long a session start waits for the answer before running on what it has. */
export const FIRST_FETCH_WAIT_MS = 2000;
/** The same wait while the backend is failing: it must not slow every session by 2 s. */
const FAILING_WAIT_MS = 250;
const REQUEST_TIMEOUT_MS = 5000;

interface AgentEntry {
  config: Readonly<PreventionConfig> | null;
  pending: Promise<void> | null;
  /** The last fetch failed: the next session start does not wait for the backend again. */
  failed: boolean;
}

export class ConfigClient {
  private readonly agents = new Map<string, AgentEntry>();
  private readonly timer: NodeJS.Timeout;
  private warned = false;
  /** Aborts the fetches in flight on stop(), so a shutdown does not wait for a backend that never answers. */
  private readonly aborter = new AbortController();

  constructor(private readonly opts: ConfigClientOptions) {
    this.timer = setInterval(() => {
      for (const agent of this.agents.keys()) void this.refresh(agent);
    }, opts.refreshMs);
    this.timer.unref();
  }

  /** The config in force for this agent now (synchronous: it runs before every call). */
  current(agentName: string): Readonly<PreventionConfig> {
    return this.agents.get(agentName)?.config ?? this.opts.fallback;
  }

  /**
   * Fetches the agent's config, waiting at most FIRST_FETCH_WAIT_MS (250 ms when the last fetch
   * for this agent failed: a backend that is away must not slow every session); never throws.
   */
  async load(agentName: string): Promise<void> {
    const failedBefore = this.agents.get(agentName)?.failed === true;
    const fetching = this.refresh(agentName);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, failedBefore ? FAILING_WAIT_MS : FIRST_FETCH_WAIT_MS);
      timer.unref();
    });
    await Promise.race([fetching, timeout]);
    clearTimeout(timer);
  }

  stop(): void {
    clearInterval(this.timer);
    this.aborter.abort();
  }

  private refresh(agentName: string): Promise<void> {
    let entry = this.agents.get(agentName);
    if (!entry)
      this.agents.set(agentName, (entry = { config: null, pending: null, failed: false }));
    if (entry.pending) return entry.pending;
    const e = entry;
    e.pending = this.fetchConfig(agentName).then((answer) => {
      if (answer !== 'failed') e.config = answer === 'none' ? null : answer;
      e.failed = answer === 'failed';
      e.pending = null;
    });
    return e.pending;
  }

  /** The stored config, `none` when nothing is stored, `failed` when there is no usable answer. */
  private async fetchConfig(
    agentName: string,
  ): Promise<Readonly<PreventionConfig> | 'none' | 'failed'> {
    const base = this.opts.url.replace(/\/+$/, '');
    const query = this.opts.projectId
      ? `?project_id=${encodeURIComponent(this.opts.projectId)}`
      : '';
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    try {
      const url = `${base}/api/agents/${encodeURIComponent(agentName)}/prevention-config${query}`;
      const res = await request(url, {
        method: 'GET',
        headers,
        timeoutMs: REQUEST_TIMEOUT_MS,
        abort: this.aborter.signal,
      });
      // 404: nothing stored for the agent nor as the project default: the constructor's config applies.
      if (res.status === 404) return 'none';
      if (!res.ok) return this.fail(`HTTP ${res.status}`);
      let body: unknown = null;
      try {
        body = JSON.parse(res.text);
      } catch {
        body = null;
      }
      if (typeof body === 'object' && body !== null && (body as { id?: unknown }).id === null)
        return 'none';
      const config = pickConfig(body);
      return config ?? this.fail('an invalid config');
    } catch (err) {
      if (this.aborter.signal.aborted) return 'failed';
      return this.fail((err as Error).message);
    }
  }

  private fail(reason: string): 'failed' {
    if (!this.warned) {
      this.warned = true;
      this.opts.logger.warn(
        `Spyglass: could not read the prevention config from the backend (${reason}); using the last known or the constructor's config`,
        { url: this.opts.url },
      );
    }
    return 'failed';
  }
}

/** The flat config fields of a backend answer, when they form a valid config. */
export function pickConfig(body: unknown): Readonly<PreventionConfig> | null {
  if (typeof body !== 'object' || body === null) return null;
  const src = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of PREVENTION_FIELDS) out[f] = src[f];
  if (validatePrevention(out as Record<keyof PreventionConfig, unknown>).length > 0) return null;
  return Object.freeze(out as unknown as PreventionConfig);
}
