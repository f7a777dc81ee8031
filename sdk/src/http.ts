/**
 * The SDK's only way to the backend. Two rules for every request:
 * - Redirects are never followed (`redirect: 'manual'`): a 3xx answer is an error, so the API key
 *   and span bodies reach only the configured url, never the address a redirect names.
 * - At most MAX_RESPONSE_BYTES of an answer are read; a longer one (by Content-Length or as it
 *   streams) aborts the request, so a broken or hostile backend cannot grow the agent's memory.
 */

/** The most bytes read of any answer: a prevention config is under 1 KB, a span batch's answer smaller. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface Answer {
  status: number;
  ok: boolean;
  headers: Headers;
  /** The body as text, at most MAX_RESPONSE_BYTES. */
  text: string;
}

export class BackendAnswerError extends Error {}

/** One request with the rules above; `abort` (and `timeoutMs`) cancel it. Throws on a redirect, a too-large answer or a network error. */
export async function request(
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string;
    timeoutMs: number;
    abort: AbortSignal;
  },
): Promise<Answer> {
  const local = new AbortController();
  const signal = AbortSignal.any([local.signal, init.abort, AbortSignal.timeout(init.timeoutMs)]);
  const res = await fetch(url, {
    method: init.method,
    headers: init.headers,
    body: init.body,
    signal,
    redirect: 'manual',
  });
  if (res.status >= 300 && res.status < 400) {
    local.abort();
    const to = res.headers.get('location');
    throw new BackendAnswerError(
      `the backend answered HTTP ${res.status}, a redirect${to ? ` to ${to}` : ''}; the SDK does not follow redirects (its API key and spans go only to the configured url): set url (SPYGLASS_URL) to the final address`,
    );
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_RESPONSE_BYTES) {
    local.abort();
    throw tooLarge(`${declared} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        local.abort();
        throw tooLarge('more');
      }
      chunks.push(chunk);
    }
  }
  return {
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    text: Buffer.concat(chunks).toString('utf8'),
  };
}

const tooLarge = (what: string) =>
  new BackendAnswerError(
    `the backend's answer is too large (${what}; the SDK reads at most ${MAX_RESPONSE_BYTES} bytes)`,
  );
