import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  JSONRPCMessageSchema,
  ListToolsResultSchema,
  McpError,
  ResultSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Transport as TransportName } from '../config/types.ts';
import { OutboundPolicyError, type GuardedFetch } from '../net/guarded-fetch.ts';
import { StdioProcess } from './stdio-process.ts';
import { findInvalidSchema } from './tool-validation.ts';

/**
 * The one file that talks to the MCP SDK (1.x): initialize, paginated tools/list and the optional
 * probe tool over stdio, streamable HTTP or legacy SSE, all inside one deadline, with teardown in
 * `finally`. Outcomes are data; nothing here throws. When the SDK's next major (or the stateless
 * 2026 protocol) arrives, this is the file to change.
 */
export interface ProbeRequest {
  transport: TransportName;
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  url?: string | undefined;
  headers?: Record<string, string> | undefined;
  healthTool?: string | undefined;
  healthToolArgs?: Record<string, unknown> | undefined;
  /** Covers the whole check: connect, initialize, tools/list and the probe. */
  timeoutMs: number;
  /** Aborts the check early (the monitor stopping). */
  signal?: AbortSignal | undefined;
  /**
   * Set for URLs that came through the API (docs/health.md#catalog-servers-and-the-outbound-url-policy): every request goes through this
   * policy-guarded fetch, and errors never repeat what the target answered.
   */
  guardedFetch?: GuardedFetch | undefined;
  /** Also list prompts and resources (every page) where the server offers them: security scans read them. */
  inventory?: boolean | undefined;
  /**
   * The clock latency is measured with, in milliseconds (default performance.now). The deadline
   * always runs on real time; tests hand in a clock their fixture advances, so that a latency
   * alert's outcome does not depend on how loaded the machine is.
   */
  clock?: (() => number) | undefined;
}

export type FailureKind =
  | 'timeout'
  | 'policy'
  | 'refused'
  | 'unreachable'
  | 'auth'
  | 'http'
  | 'spawn'
  | 'exited'
  | 'protocol'
  | 'cancelled';

export type ProbeOutcome =
  | {
      ok: true;
      /** From starting the check to the complete tools/list answer. */
      latencyMs: number;
      tools: Record<string, unknown>[];
      /** tools/list answered, but a tool fails validation or its schema does not compile. */
      invalidTools: string | null;
      /** The health_tool call failed or reported an error. */
      probeError: string | null;
      serverInfo: Record<string, unknown> | null;
      protocolVersion: string | null;
      instructions: string | null;
      capabilities: Record<string, unknown> | null;
      /** With `inventory`: prompts/list and resources/list items; null when not asked or not offered. */
      prompts: Record<string, unknown>[] | null;
      resources: Record<string, unknown>[] | null;
    }
  | {
      ok: false;
      kind: FailureKind;
      error: string;
      elapsedMs: number;
      serverInfo: Record<string, unknown> | null;
      protocolVersion: string | null;
    };

const CLIENT_INFO = { name: 'spyglass-health', version: '0.1.0' };
/**
 * One for every check: a Client builds an Ajv with every format otherwise, about half a millisecond
 * of CPU per check (a tenth of a check's own work). The SDK uses it only in its listTools() and
 * callTool() helpers, which the probe does not call (it sends its requests itself, and
 * tool-validation.ts compiles listed schemas).
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
const MAX_PAGES = 100;
const SESSION_DELETE_MS = 500;

class DeadlineError extends Error {}
class CancelledError extends Error {}

export async function probeServer(req: ProbeRequest): Promise<ProbeOutcome> {
  const clock = req.clock ?? (() => performance.now());
  const started = clock();
  const deadline = performance.now() + req.timeoutMs;
  const remaining = () => Math.max(1, Math.round(deadline - performance.now()));
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new DeadlineError()), req.timeoutMs);
  const onCancel = () => ac.abort(new CancelledError());
  req.signal?.addEventListener('abort', onCancel, { once: true });
  if (req.signal?.aborted) onCancel();

  const http: HttpFacts = { status: null, wwwAuthenticate: null, networkError: null };
  let stage = 'connect';
  let negotiated: string | null = null;
  let client: Client | undefined;
  let transport: Transport | undefined;
  let listed: Extract<ProbeOutcome, { ok: true }> | undefined;
  try {
    transport = createTransport(req, http, ac.signal);
    const orig = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (v: string) => {
      negotiated = v;
      orig?.(v);
    };
    client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: SCHEMA_VALIDATOR });
    const c = client;
    const opts = () => ({ timeout: remaining(), signal: ac.signal });
    const work = (async (): Promise<ProbeOutcome> => {
      stage = 'initialize';
      await c.connect(transport as Transport, opts());
      stage = 'tools/list';
      const { tools, invalid } = await listTools(c, opts);
      listed = {
        ok: true,
        latencyMs: round(clock() - started),
        tools,
        invalidTools: invalid ?? findInvalidSchema(tools),
        probeError: null,
        serverInfo: (c.getServerVersion() as Record<string, unknown> | undefined) ?? null,
        protocolVersion: negotiated,
        instructions: c.getInstructions() ?? null,
        capabilities: (c.getServerCapabilities() as Record<string, unknown> | undefined) ?? null,
        prompts: null,
        resources: null,
      };
      if (req.inventory) {
        const caps = listed.capabilities ?? {};
        // A server that offers prompts or resources but fails to list them is still healthy; the scan sees none.
        if (caps.prompts)
          listed.prompts = await listAll(c, 'prompts/list', 'prompts', opts).catch(() => null);
        if (caps.resources)
          listed.resources = await listAll(c, 'resources/list', 'resources', opts).catch(
            () => null,
          );
      }
      if (req.healthTool) {
        stage = `health tool ${req.healthTool}`;
        listed.probeError = await callProbe(
          c,
          req.healthTool,
          req.healthToolArgs,
          opts,
          !req.guardedFetch,
        );
      }
      return listed;
    })();
    work.catch(() => {}); // the race below may settle first; the loser must not go unhandled
    return await Promise.race([work, rejectOnAbort(ac.signal)]);
  } catch (err) {
    // The probe tool is backend health: MCP itself answered, so its failure (even a timeout) is degraded.
    if (listed)
      return {
        ...listed,
        probeError: `${stage} failed: ${describe(err, stage, req, http, transport).error}`,
      };
    const { kind, error } = describe(err, stage, req, http, transport);
    return {
      ok: false,
      kind,
      error,
      elapsedMs: round(clock() - started),
      serverInfo: (client?.getServerVersion() as Record<string, unknown> | undefined) ?? null,
      protocolVersion: negotiated,
    };
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onCancel);
    await teardown(client, transport, ac.signal.aborted);
  }
}

async function listTools(c: Client, opts: () => { timeout: number; signal: AbortSignal }) {
  const tools: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let invalid: string | null = null;
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page === MAX_PAGES) {
      invalid ??= `tools/list: more than ${MAX_PAGES} pages`;
      break;
    }
    const res = (await c.request(
      { method: 'tools/list', params: cursor ? { cursor } : {} },
      ResultSchema,
      opts(),
    )) as Record<string, unknown>;
    if (!Array.isArray(res.tools))
      throw new McpError(ErrorCode.InvalidParams, 'tools/list answered without a tools array');
    const parsed = ListToolsResultSchema.safeParse(res);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      invalid ??= `invalid tool schema: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'tools/list failed validation'}`;
    }
    for (const t of res.tools as unknown[]) {
      if (t && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string')
        tools.push(t as Record<string, unknown>);
    }
    const next = res.nextCursor;
    if (typeof next !== 'string' || next === '') break;
    if (seen.has(next)) {
      invalid ??= 'tools/list repeated a pagination cursor';
      break;
    }
    seen.add(next);
    cursor = next;
  }
  return { tools, invalid };
}

/** Every page of a list method (bounded by MAX_PAGES and a repeated cursor); items that are not objects are dropped. */
async function listAll(
  c: Client,
  method: 'prompts/list' | 'resources/list',
  key: string,
  opts: () => { timeout: number; signal: AbortSignal },
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = (await c.request(
      { method, params: cursor ? { cursor } : {} },
      ResultSchema,
      opts(),
    )) as Record<string, unknown>;
    const list = res[key];
    if (Array.isArray(list))
      for (const x of list as unknown[])
        if (x && typeof x === 'object' && !Array.isArray(x))
          items.push(x as Record<string, unknown>);
    const next = res.nextCursor;
    if (typeof next !== 'string' || next === '' || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return items;
}

async function callProbe(
  c: Client,
  name: string,
  args: Record<string, unknown> | undefined,
  opts: () => { timeout: number; signal: AbortSignal },
  echo: boolean,
): Promise<string | null> {
  const res = (await c.request(
    { method: 'tools/call', params: { name, arguments: args ?? {} } },
    ResultSchema,
    opts(),
  )) as Record<string, unknown>;
  if (res.isError === true)
    return `health tool ${name} reported an error${echo ? `: ${textOf(res) || 'no message'}` : ''}`;
  if (!Array.isArray(res.content) && res.structuredContent === undefined)
    return `health tool ${name} answered without content`;
  return null;
}

interface HttpFacts {
  status: number | null;
  wwwAuthenticate: string | null;
  networkError: Error | null;
}

function createTransport(req: ProbeRequest, http: HttpFacts, signal: AbortSignal): Transport {
  if (req.transport === 'stdio') {
    if (!req.command) throw new Error('no command configured');
    return new ProcessTransport(req.command, req.args, req.env);
  }
  if (!req.url) throw new Error('no url configured');
  const url = new URL(req.url);
  // Every request of the check shares its deadline, and we keep what the server answered for error messages.
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const sig = init?.signal ? AbortSignal.any([init.signal, signal]) : signal;
    try {
      // The SDK passes URLs; a Request would carry its own method and body, which we do not forward.
      const res = req.guardedFetch
        ? await req.guardedFetch(input instanceof Request ? input.url : input, {
            ...init,
            signal: sig,
          })
        : await fetch(input, { ...init, signal: sig });
      if (!res.ok && http.status === null) {
        http.status = res.status;
        http.wwwAuthenticate = res.headers.get('www-authenticate');
      }
      return res;
    } catch (err) {
      http.networkError ??= err as Error;
      throw err;
    }
  };
  const requestInit: RequestInit = { headers: req.headers ?? {} };
  return req.transport === 'sse'
    ? new SSEClientTransport(url, { requestInit, fetch: fetchFn })
    : new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchFn });
}

async function teardown(
  client: Client | undefined,
  transport: Transport | undefined,
  aborted: boolean,
): Promise<void> {
  try {
    // Streamable HTTP sessions end with DELETE; an unresponsive server is not asked.
    if (!aborted && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await withTimeout(transport.terminateSession(), SESSION_DELETE_MS).catch(() => {});
    }
    if (transport instanceof ProcessTransport) transport.polite = !aborted;
  } finally {
    await (client ? client.close() : transport?.close())?.catch(() => {});
    // A client whose connect failed early may not own the transport yet.
    await transport?.close().catch(() => {});
  }
}

/** stdio through our process wrapper: own process group, bounded and certain teardown. */
class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  polite = true;
  readonly proc: StdioProcess;
  private closed = false;

  constructor(
    command: string,
    args: string[] | undefined,
    env: Record<string, string> | undefined,
  ) {
    this.proc = new StdioProcess({
      command,
      args,
      env,
      onMessage: (m) => {
        const parsed = JSONRPCMessageSchema.safeParse(m);
        if (parsed.success) this.onmessage?.(parsed.data);
        else this.onerror?.(new Error('the server sent a message that is not JSON-RPC'));
      },
      onExit: () => this.fireClose(),
      onError: (e) => this.onerror?.(e),
    });
  }

  start(): Promise<void> {
    return this.proc.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.proc.send(message);
  }

  async close(): Promise<void> {
    await this.proc.stop(this.polite);
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

function describe(
  err: unknown,
  stage: string,
  req: ProbeRequest,
  http: HttpFacts,
  transport: Transport | undefined,
): { kind: FailureKind; error: string } {
  if (
    err instanceof DeadlineError ||
    (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
  ) {
    return { kind: 'timeout', error: `timed out after ${req.timeoutMs} ms waiting for ${stage}` };
  }
  if (err instanceof CancelledError) return { kind: 'cancelled', error: 'check cancelled' };
  const refused = policyError(err) ?? policyError(http.networkError);
  if (refused) return { kind: 'policy', error: refused.message };
  // What an API-supplied target answered is not repeated: that would make the check a way to read it.
  const echo = !req.guardedFetch;
  if (transport instanceof ProcessTransport) {
    const e = err as NodeJS.ErrnoException;
    if (stage === 'initialize' && !transport.proc.pid && e.code)
      return {
        kind: 'spawn',
        error: `could not start ${req.command ?? ''}: ${e.code === 'ENOENT' ? 'command not found' : e.message}`,
      };
    const exit = transport.proc.exit;
    if (exit) {
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      const tail = transport.proc.stderrTail;
      return {
        kind: 'exited',
        error: `server exited during ${stage} (${how})${tail ? `: ${tail.slice(-300)}` : ''}`,
      };
    }
  }
  // A JSON-RPC error is the server's own answer: report it as it said it.
  if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed) {
    return {
      kind: 'protocol',
      error: `${stage} failed: ${echo ? err.message.slice(0, 500) : `JSON-RPC error ${err.code}`}`,
    };
  }
  const status =
    err instanceof StreamableHTTPError || err instanceof SseError ? (err.code ?? null) : null;
  if (
    status === 401 ||
    status === 403 ||
    (err as Error)?.name === 'UnauthorizedError' ||
    http.status === 401 ||
    http.status === 403
  ) {
    const shown = status ?? http.status ?? 401;
    return {
      kind: 'auth',
      error: `authentication failed (HTTP ${shown})${echo && http.wwwAuthenticate ? `; WWW-Authenticate: ${http.wwwAuthenticate}` : ''}`,
    };
  }
  const code = errnoCode(err) ?? errnoCode(http.networkError);
  const where = req.url ? new URL(req.url).host : '';
  if (code === 'ECONNREFUSED') return { kind: 'refused', error: `connection refused (${where})` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { kind: 'unreachable', error: `host not found (${where})` };
  if (code && /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code))
    return { kind: 'exited', error: `connection closed by the server during ${stage}` };
  if (typeof status === 'number' && status >= 400)
    return { kind: 'http', error: `HTTP ${status} during ${stage}` };
  if (err instanceof McpError)
    return { kind: 'exited', error: `connection closed by the server during ${stage}` };
  if (http.status !== null) return { kind: 'http', error: `HTTP ${http.status} during ${stage}` };
  const message = err instanceof Error ? err.message : String(err);
  return {
    kind: 'protocol',
    error: echo
      ? `${stage} failed: ${message.slice(0, 500)}`
      : `${stage} failed: the server's answer was not usable MCP`,
  };
}

function policyError(err: unknown): OutboundPolicyError | null {
  for (let e = err as { cause?: unknown } | null, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e instanceof OutboundPolicyError) return e;
  }
  return null;
}

/** The first errno-style code along an error's cause chain (fetch wraps socket errors). */
function errnoCode(err: unknown): string | null {
  for (
    let e = err as { code?: unknown; cause?: unknown } | null, i = 0;
    e && i < 5;
    e = e.cause as typeof e, i++
  ) {
    if (typeof e.code === 'string' && /^[A-Z_]+$/.test(e.code)) return e.code;
  }
  return null;
}

function textOf(res: Record<string, unknown>): string {
  const content = Array.isArray(res.content)
    ? (res.content as { type?: string; text?: string }[])
    : [];
  return content
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join(' ')
    .slice(0, 300);
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;
