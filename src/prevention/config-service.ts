import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound } from '../errors.ts';
import { DEFAULT_PREVENTION, type PreventionConfig } from '../model/prevention-config.ts';
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
import { parsePreventionBody } from './parse-body.ts';

/** Agent names as long as ingest accepts on a span (src/normalize/native.ts); longer ones are a 422. */
export const MAX_AGENT_NAME = 512;

/** A config as the API answers it (docs/prevention.md): the flat shape plus where it comes from. */
export interface PreventionConfigJson extends PreventionConfig {
  /** null when nothing is stored (the spec's defaults answer). */
  id: string | null;
  project_id: string;
  /** `*` for the project default. */
  agent_name: string;
  /** true only when the agent has its own stored override. */
  is_agent_override: boolean;
  /** Where the values come from: the agent's override, the project default, or the built-in defaults (nothing stored). */
  source: PreventionSource;
  updated_at: string | null;
}

export type PreventionSource = 'agent' | 'project' | 'default';

/** Which config a call addresses: an agent's override, or the project default (agent undefined). */
export interface Scope {
  projectId: string;
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

  /** The caller's project, the one it names, else `default`; a bound key naming another gets 403. */
  project(p: Principal, requested: string | null | undefined): string {
    return scopeProject(p, requested) ?? DEFAULT_PROJECT;
  }

  /** A project named in a path must exist (404), and a bound key may only name its own (403). */
  async namedProject(p: Principal, projectId: string): Promise<string> {
    scopeProject(p, projectId);
    await this.requireProject(projectId);
    return projectId;
  }

  /** What the agent's SDK enforces: its override if present, else the project default. */
  async effective(projectId: string, agentName: string): Promise<PreventionConfigJson> {
    checkAgent(agentName);
    const override = await findPreventionRow(this.deps.db, projectId, agentName);
    return override ? toJson(override) : this.projectDefault(projectId);
  }

  /**
   * The agent's stored config (override, else project default), or a 404 when neither is stored:
   * an SDK then keeps the config its author set in code instead of taking the built-in defaults
   * (LangSight's SDK replaces its guards with whatever a 200 carries).
   */
  async stored(projectId: string, agentName: string): Promise<PreventionConfigJson> {
    const config = await this.effective(projectId, agentName);
    if (config.source === 'default') {
      throw notFound(
        `no prevention config stored for agent ${agentName} nor as project ${projectId}'s default; the agent keeps its own (add ?include_defaults=true for the built-in defaults)`,
      );
    }
    return config;
  }

  async projectDefault(projectId: string): Promise<PreventionConfigJson> {
    const row = await findPreventionRow(this.deps.db, projectId, PROJECT_DEFAULT);
    return row ? toJson(row) : unstored(projectId);
  }

  /** Every stored config of the project: the default first, then overrides by agent name. */
  async list(projectId: string): Promise<PreventionConfigJson[]> {
    return (await listPreventionRows(this.deps.db, projectId)).map(toJson);
  }

  /** PUT: the body (flat or nested) over the spec's defaults replaces the config. */
  async replace(actor: Principal, scope: Scope, body: unknown): Promise<PreventionConfigJson> {
    const agentName = nameOf(scope);
    await this.requireProject(scope.projectId);
    const config = parsePreventionBody(
      body,
      { projectId: scope.projectId, agentName },
      DEFAULT_PREVENTION,
    );
    return this.store(actor, scope.projectId, agentName, config);
  }

  /** PATCH: only the fields sent change, over the stored config (or the defaults when none is). */
  async update(actor: Principal, scope: Scope, body: unknown): Promise<PreventionConfigJson> {
    const agentName = nameOf(scope);
    await this.requireProject(scope.projectId);
    const current = await findPreventionRow(this.deps.db, scope.projectId, agentName);
    const config = parsePreventionBody(
      body,
      { projectId: scope.projectId, agentName },
      current ? configOf(current) : DEFAULT_PREVENTION,
    );
    return this.store(actor, scope.projectId, agentName, config);
  }

  /**
   * Removes an override (404 when the agent has none): the agent falls back to the project
   * default. Removing the project default (no 404: it always exists) brings back the spec's
   * defaults. Answers the config now in effect for that scope.
   */
  async remove(actor: Principal, scope: Scope): Promise<PreventionConfigJson> {
    const agentName = nameOf(scope);
    await this.requireProject(scope.projectId);
    const row = await deletePreventionRow(this.deps.db, scope.projectId, agentName);
    if (!row && agentName !== PROJECT_DEFAULT)
      throw notFound(`agent ${agentName} has no prevention config override`);
    if (row)
      this.deps.audit.record(
        actor,
        'prevention_config.delete',
        resource(scope.projectId, agentName),
        'success',
        scope.projectId,
      );
    return this.projectDefault(scope.projectId);
  }

  /** Writes need an existing project (a global key or the CLI may name any id). */
  private async requireProject(projectId: string): Promise<void> {
    if (!(await findProject(this.deps.db, projectId))) throw notFound(`no project ${projectId}`);
  }

  private async store(
    actor: Principal,
    projectId: string,
    agentName: string,
    config: PreventionConfig,
  ): Promise<PreventionConfigJson> {
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
    return toJson(row);
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

function toJson(r: PreventionRow): PreventionConfigJson {
  return {
    id: r.id,
    project_id: r.projectId,
    agent_name: r.agentName,
    is_agent_override: r.agentName !== PROJECT_DEFAULT,
    source: r.agentName === PROJECT_DEFAULT ? 'project' : 'agent',
    ...configOf(r),
    updated_at: r.updatedAt.toISOString(),
  };
}

function unstored(projectId: string): PreventionConfigJson {
  return {
    id: null,
    project_id: projectId,
    agent_name: PROJECT_DEFAULT,
    is_agent_override: false,
    source: 'default',
    ...DEFAULT_PREVENTION,
    updated_at: null,
  };
}
