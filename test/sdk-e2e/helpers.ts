import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'vitest';
import type { PreventionError } from '../../sdk/src/errors.ts';
import { Spyglass } from '../../sdk/src/index.ts';
import type { SdkLogger } from '../../sdk/src/types.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * What the SDK end-to-end tests share: the real server-everything over stdio, a clock the test
 * moves, a logger that remembers, and read-backs of what the running Spyglass server stored.
 */
export const EVERYTHING = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    import.meta.url,
  ),
);

/** server-everything spawned over stdio with a connected MCP client (close() ends the process). */
export async function connectEverything(): Promise<Client> {
  const client = new Client({ name: 'spyglass-sdk-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      stderr: 'ignore',
    }),
  );
  return client;
}

export interface Rig {
  server: TestServer;
  client: Client;
  sg: Spyglass;
  /** `client` wrapped by `sg` as server `everything`. */
  mcp: Client;
  dispose(): Promise<void>;
}

/** A running Spyglass server, server-everything over stdio and an SDK instance reporting to the server. */
export async function startRig(opts: { clock: () => number; logger?: SdkLogger }): Promise<Rig> {
  const [server, client] = await Promise.all([
    startTestServer({ SPYGLASS_RATE_LIMITS: 'off' }),
    connectEverything(),
  ]);
  const sg = new Spyglass({
    url: server.httpUrl,
    flushIntervalMs: 50,
    clock: opts.clock,
    logger: opts.logger ?? { warn: () => {} },
  });
  const mcp = sg.wrapMcp(client, { serverName: 'everything' });
  const dispose = async (): Promise<void> => {
    await sg.shutdown();
    await client.close();
    await server.dispose();
  };
  return { server, client, sg, mcp, dispose };
}

/**
 * Milliseconds since the epoch, moved by the test; every read also moves it 1 ms on, so the spans
 * of one test keep distinct, ordered timestamps (the server orders a session's spans by time).
 */
export interface ManualClock {
  (): number;
  advance(ms: number): void;
  /** The time now, without moving it. */
  peek(): number;
}

export function manualClock(start = Date.now()): ManualClock {
  let now = start;
  const clock = (() => now++) as ManualClock;
  clock.advance = (ms: number) => {
    now += ms;
  };
  clock.peek = () => now;
  return clock;
}

export interface RecordingLogger extends SdkLogger {
  warnings: { message: string; details?: Record<string, unknown> | undefined }[];
}

export function recordingLogger(): RecordingLogger {
  const warnings: RecordingLogger['warnings'] = [];
  return { warnings, warn: (message, details) => void warnings.push({ message, details }) };
}

/** A fresh agent name per test, so configs and breakers of one test never touch another's. */
export function agentName(what: string): string {
  return `${what}-${randomUUID().slice(0, 8)}`;
}

/** PUT (replace) an agent override of the prevention config in the flat shape; returns the stored config. */
export async function putAgentConfig(
  server: TestServer,
  agent: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await call(
    server.httpUrl,
    'PUT',
    `/api/agents/${encodeURIComponent(agent)}/prevention-config`,
    { body },
  );
  return expectStatus(res, 200, `PUT prevention config of ${agent}`).json as Record<
    string,
    unknown
  >;
}

/** The thrown value of a call that must fail, checked to be the given PreventionError subclass. */
export async function refusal<E extends PreventionError>(
  run: () => Promise<unknown>,
  kind: abstract new (...args: never[]) => E,
): Promise<E> {
  let thrown: unknown;
  try {
    await run();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, 'the call was not refused').toBeInstanceOf(kind);
  return thrown as E;
}

export interface StoredSession {
  session: {
    session_id: string;
    health_tag: string;
    tool_calls: number;
    failed_calls: number;
  } & Record<string, unknown>;
  spans: unknown[];
}

/** GET /api/agents/sessions/{id}: the session row (with its health_tag) and its span tree. */
export async function storedSession(server: TestServer, sessionId: string): Promise<StoredSession> {
  const res = await call(
    server.httpUrl,
    'GET',
    `/api/agents/sessions/${encodeURIComponent(sessionId)}`,
  );
  return expectStatus(res, 200, `session ${sessionId}`).json as StoredSession;
}

export interface StoredSpan {
  span_id: string;
  parent_span_id: string | null;
  span_type: string;
  server_name: string;
  tool_name: string;
  agent_name: string | null;
  status: string;
  error: string | null;
  health_tag: string | null;
  input_args: unknown;
  input_tokens: number | null;
  output_tokens: number | null;
  model_id: string | null;
  cost_usd: number | null;
  cost_estimated: boolean | null;
  started_at: string;
}

/** GET /api/traces/spans?session_id=…, oldest first (the API answers newest first). */
export async function storedSpans(server: TestServer, sessionId: string): Promise<StoredSpan[]> {
  const res = await call(
    server.httpUrl,
    'GET',
    `/api/traces/spans?session_id=${encodeURIComponent(sessionId)}&limit=1000`,
  );
  const spans = expectStatus(res, 200, `spans of ${sessionId}`).json as StoredSpan[];
  return spans.sort((a, b) => a.started_at.localeCompare(b.started_at));
}

export const toolCalls = (spans: StoredSpan[]): StoredSpan[] =>
  spans.filter((s) => s.span_type === 'tool_call');

/** Alerts of a type for one session, once the server's alert producers have handed them over. */
export async function inboxAlerts(
  server: TestServer,
  type: string,
  sessionId: string,
): Promise<Record<string, unknown>[]> {
  await server.services.alertProducers.settled();
  const res = await call(
    server.httpUrl,
    'GET',
    `/api/alerts/inbox?status=all&limit=200&type=${type}`,
  );
  const alerts = expectStatus(res, 200, 'inbox').json as Record<string, unknown>[];
  return alerts.filter((a) => a.session_id === sessionId);
}

/** Polls until fn answers truthy; fails after `ms`. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  ms = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
