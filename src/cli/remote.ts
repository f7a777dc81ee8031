import type { Env } from '../config/env.ts';

export interface RemoteOptions {
  url: string;
  apiKey?: string | undefined;
}

/** Calls a running server's REST API; every failure says what to do about it. */
export async function callApi(
  opts: RemoteOptions,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const target = new URL(path, opts.url);
  let res: { status: number; text: string };
  try {
    res = await send(
      target,
      method,
      headers,
      body === undefined ? undefined : JSON.stringify(body),
    );
  } catch (err) {
    throw new Error(unreachable(opts.url, err));
  }
  const { text } = res;
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw new Error(
      `${opts.url} answered HTTP ${res.status} with something that is not Spyglass's JSON API; is --url (SPYGLASS_URL) the address of \`spyglass serve\`?`,
    );
  }
  if (res.status === 401) {
    throw new Error(
      opts.apiKey
        ? `401: the server refused the API key (unknown, revoked or expired); check --api-key / SPYGLASS_API_KEY`
        : `401: the server at ${opts.url} requires an API key; pass --api-key <key> or set SPYGLASS_API_KEY`,
    );
  }
  if (res.status === 403)
    throw new Error(
      `403: ${detailOf(parsed)} (this command needs a key with more rights, usually an admin key)`,
    );
  if (res.status < 200 || res.status > 299) throw new Error(`${res.status}: ${detailOf(parsed)}`);
  return parsed;
}

const TIMEOUT_MS = 120_000;

/**
 * One request with node:http(s) rather than fetch: Node 20 loads its fetch implementation on first
 * use, which took 0.2 s of a 0.4 s `spyglass sessions --url` (docs/cli.md).
 */
async function send(
  target: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; text: string }> {
  const { request } =
    target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method,
        headers:
          body === undefined
            ? headers
            : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(TIMEOUT_MS, () =>
      req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })),
    );
    req.on('error', reject);
    req.end(body);
  });
}

function detailOf(parsed: unknown): string {
  const detail = (parsed as { detail?: unknown } | null)?.detail;
  return typeof detail === 'string' ? detail : JSON.stringify(detail);
}

function unreachable(url: string, err: unknown): string {
  // A host with several addresses gives an AggregateError of the attempts.
  const e = err as { code?: string; name?: string; message?: string; errors?: { code?: string }[] };
  const code = e.code ?? e.errors?.[0]?.code ?? e.name;
  if (code === 'ECONNREFUSED')
    return `nothing is listening at ${url}; start it with \`spyglass serve\`, or fix --url (SPYGLASS_URL)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot resolve the host of ${url}; check --url (SPYGLASS_URL)`;
  if (code === 'TimeoutError') return `${url} did not answer within ${TIMEOUT_MS / 1000} s`;
  return `cannot reach ${url} (${e.message ?? code ?? 'unknown error'}); check --url (SPYGLASS_URL) and that \`spyglass serve\` runs there`;
}

/** Options shared by commands that can work either on the database or through a server. */
export function remoteFrom(
  opts: { url?: string; apiKey?: string },
  env: Env,
): RemoteOptions | null {
  const url = opts.url ?? env.SPYGLASS_URL;
  if (!url) return null;
  if (!/^https?:\/\/[^/]/i.test(url)) {
    throw new Error(
      `--url (SPYGLASS_URL) must be a full address starting with http:// or https:// (got ${JSON.stringify(url)}; for example http://${url.replace(/^\w+:\/\//, '') || '127.0.0.1:8000'})`,
    );
  }
  try {
    new URL(url);
  } catch {
    throw new Error(`--url (SPYGLASS_URL) is not a valid address: ${JSON.stringify(url)}`);
  }
  return { url, apiKey: opts.apiKey ?? env.SPYGLASS_API_KEY };
}
