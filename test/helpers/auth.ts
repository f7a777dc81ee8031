import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchUrl, type PathFetch } from './inject-fetch.ts';

/** A running server's URL, or an in-process app (test/helpers/in-process.ts). */
export type Base = string | PathFetch;

/** A made-up key for SPYGLASS_API_KEYS: a global admin that exists before any stored key. */
export function bootstrapKey(): string {
  return `sg_${randomBytes(32).toString('hex')}`;
}

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined when the body is not JSON (or empty). */
  json: any;
  text: string;
}

export interface CallOptions {
  /** Sent as X-API-Key. */
  key?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One HTTP request to the running server at `base` (or in-process, given a PathFetch such as
 * test/helpers/in-process.ts' app); JSON bodies are serialised with their content type.
 */
export async function call(
  base: Base,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = {
    ...(opts.key ? { 'x-api-key': opts.key } : {}),
    ...opts.headers,
  };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const init = { method, headers, body };
  return readReply(
    await (typeof base === 'string' ? fetchUrl(`${base}${path}`, init) : base.fetch(path, init)),
  );
}

/** Status, headers and body of an answer; an event stream is cancelled unread, so it cannot keep a test waiting. */
export async function readReply(res: Response): Promise<Reply> {
  const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const text = streaming ? '' : await res.text();
  if (streaming) await res.body?.cancel();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Fails with the response body when the status is not the expected one. */
export function expectStatus(r: Reply, status: number, what: string): Reply {
  if (r.status !== status)
    throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text}`);
  return r;
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  role: 'admin' | 'viewer';
  project_id: string | null;
  expires_at: string | null;
}

/** POST /api/auth/api-keys with `adminKey`; the new key is in the response once. */
export async function createKey(
  base: Base,
  adminKey: string,
  input: {
    name?: string;
    role: 'admin' | 'viewer';
    project_id?: string;
    expires_at?: string;
    expires_in_days?: number;
  },
): Promise<CreatedKey> {
  const r = await call(base, 'POST', '/api/auth/api-keys', {
    key: adminKey,
    body: { name: input.name ?? `${input.role}-key`, ...input },
  });
  return expectStatus(r, 201, `create key ${JSON.stringify(input)}`).json as CreatedKey;
}

export async function createProject(
  base: Base,
  adminKey: string,
  id: string,
  name = `Project ${id}`,
): Promise<void> {
  expectStatus(
    await call(base, 'POST', '/api/projects', { key: adminKey, body: { id, name } }),
    201,
    `create project ${id}`,
  );
}

export async function revokeKey(base: Base, adminKey: string, id: string): Promise<void> {
  expectStatus(
    await call(base, 'DELETE', `/api/auth/api-keys/${id}`, { key: adminKey }),
    200,
    `revoke key ${id}`,
  );
}

export interface AuditEntry {
  event_id: string;
  timestamp: string;
  actor: string;
  action: string;
  resource: string;
  result: string;
}

export async function auditLogs(base: Base, key: string, query = ''): Promise<AuditEntry[]> {
  return expectStatus(
    await call(base, 'GET', `/api/audit/logs${query}`, { key }),
    200,
    'audit logs',
  ).json as AuditEntry[];
}

/** A spyglass.yaml in its own temp dir, for SPYGLASS_CONFIG; remove() deletes it. */
export function configFile(yaml: string): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-config-'));
  const path = join(dir, 'spyglass.yaml');
  writeFileSync(path, yaml);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A password the service accepts (at least 12 characters). */
export const GOOD_PASSWORD = 'correct horse battery staple';

export interface TwoProjects {
  /** Admin and viewer keys bound to the first project. */
  admin: string;
  viewer: string;
  /** An admin key bound to the second project: it must never see the first one's rows. */
  otherAdmin: string;
}

/** Creates two projects and the keys a project-scoping test needs. */
export async function twoProjects(
  base: Base,
  bootKey: string,
  first: string,
  second: string,
): Promise<TwoProjects> {
  await createProject(base, bootKey, first);
  await createProject(base, bootKey, second);
  const admin = (await createKey(base, bootKey, { role: 'admin', project_id: first })).key;
  const viewer = (await createKey(base, bootKey, { role: 'viewer', project_id: first })).key;
  const otherAdmin = (await createKey(base, bootKey, { role: 'admin', project_id: second })).key;
  return { admin, viewer, otherAdmin };
}
