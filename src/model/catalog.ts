/** Agent and server catalog entries (docs/api.md#shapes). */

export type CatalogKind = 'agent' | 'server';

export interface CatalogEntry {
  kind: CatalogKind;
  name: string;
  projectId: string;
  description: string | null;
  owner: string | null;
  tags: string[];
  runbookUrl: string | null;
  /** Who made it: `api` (a user) or auto-registration. */
  source: string;
  /** Agents: active, inactive or deprecated. */
  status?: string | null;
  /** Servers: how a health check reaches it. */
  transport?: string | null;
  url?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const AGENT_STATUSES = ['active', 'inactive', 'deprecated'] as const;
export const CATALOG_TRANSPORTS = ['stdio', 'sse', 'streamable_http'] as const;

/**
 * A catalog write (PUT /api/{agents,servers}/metadata/{name}, putAgent/putServer): the fields to
 * set, omitted ones unchanged, null clears. Agents take `status`, servers `transport` and `url`;
 * CatalogService checks the values (allowed statuses and transports, url, size) for every adapter.
 */
export interface CatalogInput {
  description?: string | null;
  owner?: string | null;
  tags?: string[];
  runbookUrl?: string | null;
  /** Agents: one of AGENT_STATUSES. */
  status?: string | null;
  /** Servers: one of CATALOG_TRANSPORTS, or null. */
  transport?: string | null;
  url?: string | null;
}

/** An entry as REST prints it: agents carry status, servers transport and url. */
export function toCatalogJson(e: CatalogEntry) {
  return {
    name: e.name,
    project_id: e.projectId,
    description: e.description,
    owner: e.owner,
    tags: e.tags,
    runbook_url: e.runbookUrl,
    source: e.source,
    ...(e.kind === 'agent' ? { status: e.status ?? null } : {}),
    ...(e.kind === 'server' ? { transport: e.transport ?? null, url: e.url ?? null } : {}),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}
