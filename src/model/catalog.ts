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
