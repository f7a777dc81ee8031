import type { AuditLog } from '../audit/audit-log.ts';
import { enforce } from '../auth/access.ts';
import type { KeyService } from '../auth/key-service.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, forbidden, notFound } from '../errors.ts';
import type { Project, ProjectInput } from '../model/project.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { storedJsonIssues } from '../normalize/json-limits.ts';
import type { Db } from '../store/db.ts';
import type { LineageCache } from '../store/lineage-cache.ts';
import {
  deleteProjectCascade,
  findProject,
  insertProject,
  listProjects,
  updateProject,
  type ProjectRow,
} from '../store/projects-repo.ts';

const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Projects (docs/auth.md#projects), for every adapter: anyone reads, admins write, a project-bound
 * key sees and changes only its own project and neither creates nor deletes one; every change audited.
 */
export class ProjectsService {
  constructor(
    private readonly db: Db,
    private readonly audit: AuditLog,
    private readonly keys: KeyService,
    /** Forgets what other parts remember of a deleted project (registered names, known ids). */
    private readonly onDeleted: (id: string) => void = () => {},
    /** Told before and after a deletion, which removes the project's lineage rows. */
    private readonly lineage: Pick<LineageCache, 'changing'> | null = null,
  ) {}

  async list(p: Principal): Promise<Project[]> {
    return (await listProjects(this.db, p.projectId)).map(toProject);
  }

  async get(p: Principal, id: string): Promise<Project> {
    scopeProject(p, id);
    const row = await findProject(this.db, id);
    if (!row) throw notFound(`no project ${id}`);
    return toProject(row);
  }

  async create(p: Principal, input: ProjectInput): Promise<Project> {
    enforce(p, 'admin');
    if (p.projectId !== null) throw forbidden('a project-bound key cannot create projects');
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    const id = typeof input.id === 'string' ? input.id : slug(name);
    const issues = [];
    if (!name) issues.push({ loc: ['body', 'name'], msg: 'Field required', type: 'missing' });
    if (!ID.test(id))
      issues.push({
        loc: ['body', 'id'],
        msg: 'Use 1-64 lowercase letters, digits, - or _',
        type: 'string_pattern_mismatch',
      });
    const settings = input.settings ?? {};
    if (typeof settings !== 'object' || Array.isArray(settings))
      issues.push({
        loc: ['body', 'settings'],
        msg: 'Input should be an object',
        type: 'dict_type',
      });
    else issues.push(...storedJsonIssues(settings, ['body', 'settings']));
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid project', { issues });
    const row = await insertProject(this.db, {
      id,
      name,
      settings: settings as Record<string, unknown>,
    });
    if (!row) throw new SpyglassError('conflict', `project ${id} already exists`);
    this.audit.record(p, 'project.created', `project:${id}`, 'success', id);
    return toProject(row);
  }

  async update(p: Principal, id: string, input: Omit<ProjectInput, 'id'>): Promise<Project> {
    enforce(p, 'admin');
    scopeProject(p, id);
    const patch: { name?: string; settings?: Record<string, unknown> } = {};
    if (input.name !== undefined) {
      if (typeof input.name !== 'string' || !input.name.trim())
        throw validation('name', 'Input should be a non-empty string');
      patch.name = input.name.trim();
    }
    if (input.settings !== undefined) {
      if (!input.settings || typeof input.settings !== 'object' || Array.isArray(input.settings))
        throw validation('settings', 'Input should be an object');
      const issues = storedJsonIssues(input.settings, ['body', 'settings']);
      if (issues.length > 0) throw new SpyglassError('validation', 'invalid project', { issues });
      patch.settings = input.settings as Record<string, unknown>;
    }
    const row = await updateProject(this.db, id, patch);
    if (!row) throw notFound(`no project ${id}`);
    this.audit.record(p, 'project.updated', `project:${id}`, 'success', id);
    return toProject(row);
  }

  async delete(p: Principal, id: string): Promise<void> {
    enforce(p, 'admin');
    if (p.projectId !== null) throw forbidden('a project-bound key cannot delete projects');
    if (id === DEFAULT_PROJECT)
      throw new SpyglassError('conflict', 'the default project cannot be deleted');
    // Audit entries still queued for this project are written first, so the delete removes them too.
    await this.audit.flush();
    const changing = this.lineage?.changing();
    let deleted: boolean;
    try {
      deleted = await deleteProjectCascade(this.db, id);
    } finally {
      changing?.done();
    }
    // Its keys were deleted in the same transaction; a cached verification must not outlive them.
    this.keys.forgetCached();
    // Agents and servers seen before must be registered again when a project of this id sends spans.
    this.onDeleted(id);
    if (!deleted) throw notFound(`no project ${id}`);
    // Instance-wide (no project): the record of the deletion is not a row of the deleted project.
    this.audit.record(p, 'project.deleted', `project:${id}`, 'success', null);
  }

  async exists(id: string): Promise<boolean> {
    return (await findProject(this.db, id)) !== undefined;
  }
}

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

function validation(field: string, msg: string): SpyglassError {
  return new SpyglassError('validation', 'invalid project', {
    issues: [{ loc: ['body', field], msg, type: 'value_error' }],
  });
}

function toProject(r: ProjectRow): Project {
  return {
    id: r.id,
    name: r.name,
    settings: r.settings,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
