import type { GuardedFetch } from '../net/guarded-fetch.ts';

/**
 * Bounded raw HTTP for the exposure probe (exposure.ts): JSON-RPC over streamable HTTP and the
 * legacy SSE endpoint event. Bodies are read only to tell a JSON-RPC result from an error, at most
 * MAX_BODY bytes, and never returned: callers learn statuses and yes/no facts, not what was said.
 */
export type Fetcher = GuardedFetch;

/** A protocol version every current server accepts in initialize (servers answer with their own). */
export const PROBE_PROTOCOL = '2025-06-18';
const MAX_BODY = 256 * 1024;

export interface RpcAnswer {
  status: number;
  sessionId: string | null;
  allowOriginStar: boolean;
  /** The answer carried a JSON-RPC `result` for our id (false: an error, or nothing readable). */
  result: boolean;
}

export function initializeBody(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: PROBE_PROTOCOL,
      capabilities: {},
      clientInfo: { name: 'spyglass-security-scan', version: '1.0.0' },
    },
  });
}

/** POSTs one JSON-RPC message; a notification (no id) only waits for the status. */
export async function postRpc(
  fetcher: Fetcher,
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<RpcAnswer> {
  const res = await fetcher(url, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body,
    signal,
  });
  const answer: RpcAnswer = {
    status: res.status,
    sessionId: res.headers.get('mcp-session-id'),
    allowOriginStar: res.headers.get('access-control-allow-origin')?.trim() === '*',
    result: false,
  };
  const id = (JSON.parse(body) as { id?: unknown }).id;
  if (!res.ok || id === undefined) {
    await res.body?.cancel().catch(() => {});
    return answer;
  }
  answer.result = await readResult(res, id);
  return answer;
}

/** Reads JSON or SSE `data:` lines until the message with our id; true when it has a result. */
async function readResult(res: Response, id: unknown): Promise<boolean> {
  const sse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  let seen = 0;
  let text = '';
  const decoder = new TextDecoder();
  const reader = res.body?.getReader();
  if (!reader) return false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) {
        seen += value.byteLength;
        text += decoder.decode(value, { stream: true });
      }
      if (sse) {
        for (const line of text.split('\n')) {
          if (!line.startsWith('data:')) continue;
          const verdict = judge(line.slice(5), id);
          if (verdict !== null) return verdict;
        }
      }
      if (done || seen > MAX_BODY) return sse ? false : (judge(text, id) ?? false);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function judge(raw: string, id: unknown): boolean | null {
  try {
    const msg = JSON.parse(raw) as { id?: unknown; result?: unknown };
    return msg.id === id ? msg.result !== undefined : null;
  } catch {
    return null;
  }
}

/** Ends a session the probe created, so the server does not keep it; failures do not matter. */
export async function deleteSession(
  fetcher: Fetcher,
  url: string,
  sessionId: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  try {
    const res = await fetcher(url, {
      method: 'DELETE',
      headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROBE_PROTOCOL },
      signal,
    });
    await res.body?.cancel().catch(() => {});
  } catch {
    // the server may not support DELETE (405) or be gone; the session expires on its own
  }
}

/** Legacy SSE: opens the stream and returns the `endpoint` event's URI (resolved); the caller closes the stream, which ends the session. */
export async function openSseEndpoint(
  fetcher: Fetcher,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ status: number; allowOriginStar: boolean; endpoint: URL | null; close(): void }> {
  const ctrl = new AbortController();
  const close = () => ctrl.abort();
  try {
    const res = await fetcher(url, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream' },
      signal: AbortSignal.any([signal, ctrl.signal]),
    });
    const allowOriginStar = res.headers.get('access-control-allow-origin')?.trim() === '*';
    if (!res.ok || !res.body) {
      close();
      return { status: res.status, allowOriginStar, endpoint: null, close };
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (text.length < MAX_BODY) {
      const { done, value } = await reader.read();
      if (value) text += decoder.decode(value, { stream: true });
      const m = /event:\s*endpoint\r?\ndata:\s*([^\r\n]+)\r?\n/.exec(text);
      if (m?.[1])
        return { status: res.status, allowOriginStar, endpoint: new URL(m[1].trim(), url), close };
      if (done) break;
    }
    close();
    return { status: res.status, allowOriginStar, endpoint: null, close };
  } catch (err) {
    close();
    throw err;
  }
}
