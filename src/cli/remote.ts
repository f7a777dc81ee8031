import { loadConfig } from '../config/load-config.ts';
import { createLogger } from '../logger.ts';
import type { Services } from '../services.ts';

export interface RemoteOptions {
  url?: string;
  apiKey?: string;
}

/** Calls a running server's REST API; errors carry the server's `detail`. */
export async function callApi(opts: RemoteOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(path, opts.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const detail = (parsed as { detail?: unknown } | null)?.detail;
    throw new Error(`${res.status}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  }
  return parsed;
}

/** Opens the configured database directly (no server needed) for the duration of `fn`. */
export async function withLocalServices<T>(fn: (s: Services) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger(process.env.SPYGLASS_LOG_LEVEL ?? 'warn');
  // The services pull in most of the server; load them only for commands that need them.
  const { openStore } = await import('../store/open-store.ts');
  const { createServices } = await import('../services.ts');
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    onInfo: (msg) => process.stderr.write(`spyglass: ${msg}\n`),
  });
  const services = await createServices(config, store, logger);
  try {
    return await fn(services);
  } finally {
    await services.close();
    await store.close();
  }
}

/** Options shared by commands that can work either on the database or through a server. */
export function remoteFrom(opts: { url?: string; apiKey?: string }): RemoteOptions | null {
  const url = opts.url ?? process.env.SPYGLASS_URL;
  return url ? { url, apiKey: opts.apiKey ?? process.env.SPYGLASS_API_KEY } : null;
}
