import type { AuditLog } from '../audit/audit-log.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { CatalogEntry, CatalogInput, CatalogKind } from '../model/catalog.ts';
import { SpyglassError, notFound } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import type { ServerConfig } from '../config/types.ts';
import type { OutboundPolicy } from '../net/outbound-policy.ts';
import {
  countServersWithUrl,
  deleteCatalogEntry,
  findCatalogEntry,
  findUncataloguedNames,
  listCatalog,
  registerNames,
  upsertCatalogEntry,
  withServerCatalogLock,
  type AgentRow,
  type ServerRow,
} from '../store/catalog-repo.ts';
import { checkEntry, invalid } from './entry-rules.ts';
import { addsUrl, serverPatchIssues } from './server-rules.ts';

export type { CatalogKind } from '../model/catalog.ts';

export interface CatalogOptions {
  /** spyglass.yaml's servers[], which belong to the default project. */
  servers: readonly ServerConfig[];
  /** The outbound policy of docs/health.md#catalog-servers-and-the-outbound-url-policy (network.allow_private_targets). */
  policy: OutboundPolicy;
  /** monitor.max_catalog_servers_per_project: entries with a url one project may have. */
  maxServersWithUrl: number;
  /** Where changes and deletes are recorded (the audit log). */
  audit?: Pick<AuditLog, 'record'>;
}

/**
 * Agent and server catalogs of the active project (docs/api.md#shapes): the caller's project, the
 * one it names, else `default`. Entries a user edited are never overwritten by auto-registration.
 */
export class CatalogService {
  constructor(
    private readonly db: Db,
    private readonly opts: CatalogOptions,
  ) {}

  private project(p: Principal, requested: string | null | undefined): string {
    return scopeProject(p, requested) ?? DEFAULT_PROJECT;
  }

  async list(by: Principal, kind: CatalogKind, projectId?: string | null): Promise<CatalogEntry[]> {
    enforce(by, 'read');
    return (await listCatalog(this.db, kind, this.project(by, projectId))).map((r) =>
      toEntry(kind, r),
    );
  }

  async get(
    by: Principal,
    kind: CatalogKind,
    name: string,
    projectId?: string | null,
  ): Promise<CatalogEntry> {
    enforce(by, 'read');
    const project = this.project(by, projectId);
    const row = await findCatalogEntry(this.db, kind, project, name);
    if (!row) throw notFound(`no ${kind} ${name} in project ${project}`);
    return toEntry(kind, row);
  }

  /** Creates or updates an entry (admins); the values are checked here (entry-rules.ts). */
  async put(
    by: Principal,
    kind: CatalogKind,
    name: string,
    input: CatalogInput,
    requested?: string | null,
  ): Promise<CatalogEntry> {
    enforce(by, 'write');
    const projectId = this.project(by, requested);
    const patch = checkEntry(kind, input);
    const audited = (entry: CatalogEntry) => {
      this.opts.audit?.record(
        by,
        'catalog.updated',
        `${kind}:${projectId}/${name}`,
        'success',
        projectId,
      );
      return entry;
    };
    if (kind === 'agent')
      return audited(
        toEntry(kind, await upsertCatalogEntry(this.db, kind, projectId, name, patch)),
      );
    const configured =
      projectId === DEFAULT_PROJECT ? this.opts.servers.find((s) => s.name === name) : undefined;
    const row = await withServerCatalogLock(this.db, projectId, async (tx) => {
      const existing = (await findCatalogEntry(tx, 'server', projectId, name)) as
        ServerRow | undefined;
      const issues = serverPatchIssues(patch, existing, configured, this.opts.policy);
      if (issues.length > 0) throw invalid(issues);
      if (configured) {
        // What spyglass.yaml says is not copied into the catalog, where project viewers read it.
        patch.transport = configured.transport;
        delete patch.url;
      }
      const cap = this.opts.maxServersWithUrl;
      if (addsUrl(patch, existing) && (await countServersWithUrl(tx, projectId)) >= cap) {
        throw new SpyglassError(
          'conflict',
          `project ${projectId} already has ${cap} catalog servers with a url (monitor.max_catalog_servers_per_project); remove one or ask the operator to raise the limit`,
        );
      }
      return upsertCatalogEntry(tx, 'server', projectId, name, patch);
    });
    return audited(toEntry(kind, row));
  }

  async delete(
    by: Principal,
    kind: CatalogKind,
    name: string,
    requested?: string | null,
  ): Promise<void> {
    enforce(by, 'write');
    const projectId = this.project(by, requested);
    if (!(await deleteCatalogEntry(this.db, kind, projectId, name)))
      throw notFound(`no ${kind} ${name} in project ${projectId}`);
    this.opts.audit?.record(
      by,
      'catalog.deleted',
      `${kind}:${projectId}/${name}`,
      'success',
      projectId,
    );
  }

  /** Registers names found in stored spans that the catalog lacks (POST /api/{agents,servers}/discover). */
  async discover(by: Principal, kind: CatalogKind, requested?: string | null): Promise<string[]> {
    enforce(by, 'admin');
    const projectId = this.project(by, requested);
    return registerNames(
      this.db,
      kind,
      projectId,
      await findUncataloguedNames(this.db, kind, projectId),
    );
  }
}

function toEntry(kind: CatalogKind, r: AgentRow | ServerRow): CatalogEntry {
  return {
    kind,
    name: r.name,
    projectId: r.projectId,
    description: r.description,
    owner: r.owner,
    tags: r.tags,
    runbookUrl: r.runbookUrl,
    source: r.source,
    ...('status' in r ? { status: r.status } : {}),
    ...('transport' in r ? { transport: r.transport, url: r.url } : {}),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
