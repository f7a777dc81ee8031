import type { Services } from '../services.ts';

export interface RemoteOptions {
  url: string;
  apiKey?: string | undefined;
}

/** Calls a running server's REST API; every failure says what to do about it. */
export async function callApi(opts: RemoteOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const target = new URL(path, opts.url);
  let res: Response;
  try {
    res = await fetch(target, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(120_000) });
  } catch (err) {
    throw new Error(unreachable(opts.url, err));
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw new Error(`${opts.url} answered HTTP ${res.status} with something that is not Spyglass's JSON API; is --url (SPYGLASS_URL) the address of \`spyglass serve\`?`);
  }
  if (res.status === 401) {
    throw new Error(opts.apiKey
      ? `401: the server refused the API key (unknown, revoked or expired); check --api-key / SPYGLASS_API_KEY`
      : `401: the server at ${opts.url} requires an API key; pass --api-key <key> or set SPYGLASS_API_KEY`);
  }
  if (res.status === 403) throw new Error(`403: ${detailOf(parsed)} (this command needs a key with more rights, usually an admin key)`);
  if (!res.ok) throw new Error(`${res.status}: ${detailOf(parsed)}`);
  return parsed;
}

function detailOf(parsed: unknown): string {
  const detail = (parsed as { detail?: unknown } | null)?.detail;
  return typeof detail === 'string' ? detail : JSON.stringify(detail);
}

function unreachable(url: string, err: unknown): string {
  // undici puts the socket error in `cause`; a host with several addresses gives an AggregateError.
  const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? (err as { name?: string }).name;
  if (code === 'ECONNREFUSED') return `nothing is listening at ${url}; start it with \`spyglass serve\`, or fix --url (SPYGLASS_URL)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot resolve the host of ${url}; check --url (SPYGLASS_URL)`;
  if (code === 'TimeoutError') return `${url} did not answer within 120 s`;
  return `cannot reach ${url} (${cause?.message ?? code ?? 'unknown error'}); check --url (SPYGLASS_URL) and that \`spyglass serve\` runs there`;
}

/** Opens the configured database directly (no server needed) for the duration of `fn`. */
export async function withLocalServices<T>(fn: (s: Services) => Promise<T>): Promise<T> {
  // The config, logger and services pull in most of the server; load them only for commands that need them.
  const { loadConfig } = await import('../config/load-config.ts');
  const { createLogger } = await import('../logger.ts');
  const config = loadConfig();
  const logger = createLogger(process.env.SPYGLASS_LOG_LEVEL ?? 'warn');
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
  if (!url) return null;
  if (!/^https?:\/\/[^/]/i.test(url)) {
    throw new Error(`--url (SPYGLASS_URL) must be a full address starting with http:// or https:// (got ${JSON.stringify(url)}; for example http://${url.replace(/^\w+:\/\//, '') || '127.0.0.1:8000'})`);
  }
  try {
    new URL(url);
  } catch {
    throw new Error(`--url (SPYGLASS_URL) is not a valid address: ${JSON.stringify(url)}`);
  }
  return { url, apiKey: opts.apiKey ?? process.env.SPYGLASS_API_KEY };
}
