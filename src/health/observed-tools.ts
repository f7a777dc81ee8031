import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { schemaDrift } from '../alerts/producers/monitor-messages.ts';
import type { AlertSink } from '../model/alert.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { findToolSnapshot } from '../store/health-repo.ts';
import { findObservedBaseline, saveObservation } from '../store/observed-repo.ts';
import { findProject } from '../store/projects-repo.ts';
import { driftChanges } from './checker.ts';
import { mostSevere } from './drift-diff.ts';
import { hashTools, reduceTool } from './schema-hash.ts';
import type { DriftEvent, ToolObservation, ToolSnapshot } from '../model/health.ts';

/** The most tools one posted list may hold, and the longest server, agent and tool names. */
export const MAX_OBSERVED_TOOLS = 2000;
const MAX_NAME = 512;

export interface ObservedToolsDeps {
  db: Db;
  alerts: AlertSink;
  logger: Logger;
  now?: () => Date;
}

/**
 * Tool lists an agent saw (LangSight's `list_tools` wrapper posts them to
 * POST /api/servers/{name}/tools): the observed schemas of that server in the caller's project.
 * Each is compared with the server's previous observation exactly as a health check compares with
 * its baseline (same hash, diff and classification); a change is a drift event marked
 * `observed_by: agent` in the drift history, and fires the same schema_drift alert.
 */
export class ObservedToolsService {
  private readonly now: () => Date;

  constructor(private readonly deps: ObservedToolsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** `body`: the tools as an agent posted them (a list, or `{tools, agent_name?, project_id?}`). */
  async record(
    actor: Principal,
    serverName: string,
    body: unknown,
    query: { project_id?: string | undefined },
  ): Promise<ToolObservation> {
    enforce(actor, 'write');
    const input = parseBody(serverName, body);
    const projectId =
      scopeProject(actor, input.projectId ?? (query.project_id || undefined)) ?? DEFAULT_PROJECT;
    if (!(await findProject(this.deps.db, projectId)))
      throw notFound(`project ${projectId} does not exist`);
    const tools = input.tools.map(reduceTool);
    const hash = hashTools(tools);
    const observedAt = this.now();
    const baseline = await findObservedBaseline(this.deps.db, projectId, serverName);
    let drift: DriftEvent | null = null;
    if (baseline !== null && baseline !== hash) {
      const changes = driftChanges(
        await findToolSnapshot(this.deps.db, baseline),
        tools,
        null,
        null,
      );
      drift = {
        id: randomUUID(),
        projectId,
        serverName,
        detectedAt: observedAt,
        previousHash: baseline,
        currentHash: hash,
        classification: mostSevere(changes),
        changes,
        observedBy: 'agent',
        agentName: input.agentName,
      };
    }
    await saveObservation(
      this.deps.db,
      {
        id: randomUUID(),
        projectId,
        serverName,
        agentName: input.agentName,
        schemaHash: hash,
        toolsCount: tools.length,
        observedAt,
      },
      tools,
      drift,
    );
    if (drift) this.alert(drift);
    return {
      serverName,
      projectId,
      agentName: input.agentName,
      toolsCount: tools.length,
      schemaHash: hash,
      observedAt,
      drift,
    };
  }

  private alert(d: DriftEvent): void {
    const base = schemaDrift(d, d);
    const by = d.agentName ? `agent ${d.agentName}` : 'an agent';
    const input = {
      ...base,
      title: `${base.title} (observed by ${by})`,
      fields: { ...base.fields, observed_by: 'agent', agent_name: d.agentName ?? null },
    };
    this.deps.alerts
      .fire(input)
      .catch((err: unknown) =>
        this.deps.logger.error(
          { err, server: d.serverName, project: d.projectId },
          'observed drift alert failed',
        ),
      );
    this.deps.logger.warn(
      {
        server: d.serverName,
        project: d.projectId,
        agent: d.agentName,
        classification: d.classification,
      },
      'MCP tool schema drift observed by an agent',
    );
  }
}

interface ParsedBody {
  tools: ToolSnapshot[];
  agentName: string | null;
  projectId: string | undefined;
}

/** `[tool, …]` or `{"tools": [...], "agent_name"?, "project_id"?}`; `input_schema` is read as `inputSchema`. */
function parseBody(serverName: string, body: unknown): ParsedBody {
  const issues: ValidationIssue[] = [];
  if (serverName.length > MAX_NAME)
    issues.push({
      loc: ['path', 'name'],
      msg: `Input should have at most ${MAX_NAME} characters`,
      type: 'string_too_long',
    });
  // Names are identifiers the database stores as they are: a NUL (which PostgreSQL refuses) is not one.
  if (serverName.includes('\0'))
    issues.push({
      loc: ['path', 'name'],
      msg: 'Input should not contain NUL',
      type: 'value_error',
    });
  const obj =
    !Array.isArray(body) && typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)
      : null;
  const list = Array.isArray(body) ? body : obj?.tools;
  const loc = Array.isArray(body) ? ['body'] : ['body', 'tools'];
  const text = (v: unknown, field: string): string | null | undefined => {
    if (v === undefined || v === null || v === '')
      return v === '' ? undefined : (v as null | undefined);
    if (typeof v === 'string' && v.length <= MAX_NAME && !v.includes('\0')) return v;
    issues.push({
      loc: ['body', field],
      msg: `Input should be a string of at most ${MAX_NAME} characters, without NUL`,
      type: 'string_type',
    });
    return undefined;
  };
  const agentName = text(obj?.agent_name, 'agent_name') ?? null;
  const projectId = text(obj?.project_id, 'project_id') ?? undefined;
  const tools: ToolSnapshot[] = [];
  if (!Array.isArray(list))
    issues.push({ loc, msg: 'Input should be a list of tools', type: 'list_type' });
  else if (list.length > MAX_OBSERVED_TOOLS)
    issues.push({
      loc,
      msg: `A list holds at most ${MAX_OBSERVED_TOOLS} tools (got ${list.length})`,
      type: 'too_long',
    });
  else {
    list.forEach((raw: unknown, i) => {
      const t =
        typeof raw === 'object' && raw !== null && !Array.isArray(raw)
          ? (raw as Record<string, unknown>)
          : null;
      if (!t || typeof t.name !== 'string' || t.name === '' || t.name.length > MAX_NAME) {
        issues.push({
          loc: [...loc, i, 'name'],
          msg: `Input should be a tool with a name of 1 to ${MAX_NAME} characters`,
          type: 'value_error',
        });
        return;
      }
      tools.push({
        ...t,
        inputSchema: t.inputSchema ?? t.input_schema,
        outputSchema: t.outputSchema ?? t.output_schema,
      } as ToolSnapshot);
    });
  }
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid tool list', { issues });
  return { tools, agentName, projectId };
}
