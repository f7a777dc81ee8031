import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound } from '../errors.ts';
import {
  DEFAULT_PREVENTION,
  type PreventionConfig,
  type PreventionInput,
  type ScopedPreventionConfig,
} from '../model/prevention-config.ts';
import type { Db } from '../store/db.ts';
import {
  PROJECT_DEFAULT,
  configOf,
  deletePreventionRow,
  findPreventionRow,
  listPreventionRows,
  upsertPreventionRow,
  type PreventionRow,
} from '../store/prevention-repo.ts';
import { findProject } from '../store/projects-repo.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { checkPrevention } from './check-config.ts';

/** Agent names as long as ingest accepts on a span (src/normalize/native.ts); longer ones are a 422. */
export const MAX_AGENT_NAME = 512;

/**
 * Which config a call addresses. The project: a bound caller's own (naming another is a 403), else
 * the one named, else `default`; one named in a path (`projectNamed`) must exist (404). The agent:
 * its override, or the project default when undefined.
 */
export interface Scope {
  projectId?: string | null | undefined;
  projectNamed?: boolean;
  agentName?: string | undefined;
}

export interface PreventionServiceDeps {
  db: Db;
  audit: AuditLog;
  now?: () => Date;
}

/**
 * Prevention configs (docs/prevention.md). An agent's effective config is its override
 * when it has one, else the project default, else the spec's defaults: whole configs, never
 * merged field by field. PUT replaces (omitted fields take defaults), PATCH merges into what is
 * stored. Every change is audited.
 */
export class PreventionService {
  private readonly now: () => Date;

  constructor(private readonly deps: PreventionServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * What the agent's SDK enforces: its override if present, else the project default, else the
   * built-in defaults; without an agent, the project default. Any role reads.
   */
  async effective(by: Principal, scope: Scope): Promise<ScopedPreventionConfig> {
    const projectId = await this.project(by, scope);
    if (scope.agentName === undefined) return this.projectDefault(projectId);
    checkAgent(scope.agentName);
    const override = await findPreventionRow(this.deps.db, projectId, scope.agentName);
    return override ? fromRow(override) : this.projectDefault(projectId);
  }

  /**
   * The agent's stored config (override, else project default), or a 404 when neither is stored:
   * an SDK then keeps the config its author set in code instead of taking the built-in defaults
   * (LangSight's SDK replaces its guards with whatever a 200 carries).
   */
  async stored(by: Principal, scope: Scope): Promise<ScopedPreventionConfig> {
    const config = await this.effective(by, scope);
    if (config.source === 'default' && scope.agentName !== undefined) {
      throw notFound(
        `no prevention config stored for agent ${scope.agentName} nor as project ${config.projectId}'s default; the agent keeps its own (add ?include_defaults=true for the built-in defaults)`,
      );
    }
    return config;
  }

  /** Every stored config of the project: the default first, then overrides by agent name. */
  async list(by: Principal, projectId?: string | null): Promise<ScopedPreventionConfig[]> {
    const project = await this.project(by, { projectId });
    return (await listPreventionRows(this.deps.db, project)).map(fromRow);
  }

  /** PUT: the fields given over the defaults replace the config (admins). */
  async replace(
    by: Principal,
    scope: Scope,
    input: PreventionInput,
  ): Promise<ScopedPreventionConfig> {
    const { projectId, agentName } = await this.writeTarget(by, scope);
    const config = checkPrevention(input, { projectId, agentName }, DEFAULT_PREVENTION);
    return this.store(by, projectId, agentName, config);
  }

  /** PATCH: only the fields sent change, over the stored config or the defaults (admins). */
  async update(
    by: Principal,
    scope: Scope,
    input: PreventionInput,
  ): Promise<ScopedPreventionConfig> {
    const { projectId, agentName } = await this.writeTarget(by, scope);
    const current = await findPreventionRow(this.deps.db, projectId, agentName);
    const config = checkPrevention(
      input,
      { projectId, agentName },
      current ? configOf(current) : DEFAULT_PREVENTION,
    );
    return this.store(by, projectId, agentName, config);
  }

  /**
   * Removes an override (404 when the agent has none): the agent falls back to the project
   * default. Removing the project default (no 404: it always exists) brings back the built-in
   * defaults. Answers the config now in effect for that scope (admins).
   */
  async remove(by: Principal, scope: Scope): Promise<ScopedPreventionConfig> {
    const { projectId, agentName } = await this.writeTarget(by, scope);
    const row = await deletePreventionRow(this.deps.db, projectId, agentName);
    if (!row && agentName !== PROJECT_DEFAULT)
      throw notFound(`agent ${agentName} has no prevention config override`);
    if (row)
      this.deps.audit.record(
        by,
        'prevention_config.delete',
        resource(projectId, agentName),
        'success',
        projectId,
      );
    return this.projectDefault(projectId);
  }

  private async projectDefault(projectId: string): Promise<ScopedPreventionConfig> {
    const row = await findPreventionRow(this.deps.db, projectId, PROJECT_DEFAULT);
    return row ? fromRow(row) : unstored(projectId);
  }

  /** Reads need any role; a project named in a path must exist. */
  private async project(by: Principal, scope: Scope): Promise<string> {
    enforce(by, 'read');
    const projectId = scopeProject(by, scope.projectId) ?? DEFAULT_PROJECT;
    if (scope.projectNamed) await this.requireProject(projectId);
    return projectId;
  }

  /** Writes need the admin role and an existing project (a global key or the CLI may name any id). */
  private async writeTarget(
    by: Principal,
    scope: Scope,
  ): Promise<{ projectId: string; agentName: string }> {
    enforce(by, 'write');
    const projectId = scopeProject(by, scope.projectId) ?? DEFAULT_PROJECT;
    const agentName = nameOf(scope);
    await this.requireProject(projectId);
    return { projectId, agentName };
  }

  private async requireProject(projectId: string): Promise<void> {
    if (!(await findProject(this.deps.db, projectId))) throw notFound(`no project ${projectId}`);
  }

  private async store(
    actor: Principal,
    projectId: string,
    agentName: string,
    config: PreventionConfig,
  ): Promise<ScopedPreventionConfig> {
    const row = await upsertPreventionRow(this.deps.db, {
      id: randomUUID(),
      projectId,
      agentName,
      at: this.now(),
      config,
    });
    this.deps.audit.record(
      actor,
      'prevention_config.update',
      resource(projectId, agentName),
      'success',
      projectId,
    );
    return fromRow(row);
  }
}

function nameOf(scope: Scope): string {
  if (scope.agentName === undefined) return PROJECT_DEFAULT;
  checkAgent(scope.agentName);
  return scope.agentName;
}

/** `*` names the project default and is not an agent; names are bounded like everywhere else. */
function checkAgent(name: string): void {
  const msg =
    name === PROJECT_DEFAULT
      ? '`*` is the project default; use /api/projects/{project_id}/prevention-config'
      : name.trim() === ''
        ? 'Input should not be empty'
        : name.length > MAX_AGENT_NAME
          ? `Input should have at most ${MAX_AGENT_NAME} characters`
          : null;
  if (msg)
    throw new SpyglassError('validation', 'invalid agent name', {
      issues: [{ loc: ['path', 'name'], msg, type: 'value_error' }],
    });
}

const resource = (projectId: string, agentName: string) =>
  `prevention_config:${projectId}/${agentName}`;

function fromRow(r: PreventionRow): ScopedPreventionConfig {
  return {
    id: r.id,
    projectId: r.projectId,
    agentName: r.agentName,
    isAgentOverride: r.agentName !== PROJECT_DEFAULT,
    source: r.agentName === PROJECT_DEFAULT ? 'project' : 'agent',
    config: configOf(r),
    updatedAt: r.updatedAt,
  };
}

function unstored(projectId: string): ScopedPreventionConfig {
  return {
    id: null,
    projectId,
    agentName: PROJECT_DEFAULT,
    isAgentOverride: false,
    source: 'default',
    config: { ...DEFAULT_PREVENTION },
    updatedAt: null,
  };
}
