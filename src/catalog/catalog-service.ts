import type { AuditLog } from '../audit/audit-log.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { CatalogEntry, CatalogKind } from '../model/catalog.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { storedJsonIssues } from '../normalize/json-limits.ts';
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
  type CatalogPatch,
  type ServerRow,
} from '../store/catalog-repo.ts';
import { addsUrl, serverPatchIssues } from './server-rules.ts';

export type { CatalogKind } from '../model/catalog.ts';

const TRANSPORTS = ['stdio', 'sse', 'streamable_http'];
const AGENT_STATUSES = ['active', 'inactive', 'deprecated'];

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

  /** Creates or updates an entry (admins); `body` uses REST's field names, checked here. */
  async put(
    by: Principal,
    kind: CatalogKind,
    name: string,
    body: unknown,
    requested?: string | null,
  ): Promise<CatalogEntry> {
    enforce(by, 'write');
    const projectId = this.project(by, requested);
    const patch = parsePatch(kind, body);
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

function parsePatch(kind: CatalogKind, body: unknown): CatalogPatch {
  const issues: ValidationIssue[] = [];
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid([{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }]);
  // Strings and tags are stored as sent: the whole entry is held to the stored-JSON size limit.
  const tooLarge = storedJsonIssues(body, ['body']);
  if (tooLarge.length > 0) throw invalid(tooLarge);
  const b = body as Record<string, unknown>;
  const str = (field: string): string | null | undefined => {
    const v = b[field];
    if (v === undefined || v === null) return v;
    if (typeof v !== 'string')
      issues.push({ loc: ['body', field], msg: 'Input should be a string', type: 'string_type' });
    return typeof v === 'string' ? v : undefined;
  };
  const patch: CatalogPatch = {
    description: str('description'),
    owner: str('owner'),
    runbookUrl: str('runbook_url'),
  };
  if (b.tags !== undefined) {
    if (!Array.isArray(b.tags) || !b.tags.every((t) => typeof t === 'string'))
      issues.push({
        loc: ['body', 'tags'],
        msg: 'Input should be a list of strings',
        type: 'list_type',
      });
    else patch.tags = b.tags as string[];
  }
  if (kind === 'agent' && b.status !== undefined) {
    if (!AGENT_STATUSES.includes(String(b.status)))
      issues.push({
        loc: ['body', 'status'],
        msg: `Input should be one of ${AGENT_STATUSES.join(', ')}`,
        type: 'enum',
      });
    else patch.status = String(b.status);
  }
  if (kind === 'server') {
    patch.url = str('url');
    const transport = str('transport');
    if (transport !== undefined && transport !== null && !TRANSPORTS.includes(transport))
      issues.push({
        loc: ['body', 'transport'],
        msg: `Input should be one of ${TRANSPORTS.join(', ')}`,
        type: 'enum',
      });
    else patch.transport = transport;
    if (patch.url && !/^https?:\/\//.test(patch.url))
      issues.push({
        loc: ['body', 'url'],
        msg: 'Input should be an http(s) URL',
        type: 'url_parsing',
      });
  }
  if (issues.length > 0) throw invalid(issues);
  return patch;
}

function invalid(issues: ValidationIssue[]): SpyglassError {
  return new SpyglassError('validation', 'invalid catalog entry', { issues });
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
