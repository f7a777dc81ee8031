import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { schemaDrift } from '../alerts/producers/monitor-messages.ts';
import type { AlertSink } from '../model/alert.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { findToolSnapshot } from '../store/health-repo.ts';
import { findObservedBaseline, saveObservation } from '../store/observed-repo.ts';
import { findProject } from '../store/projects-repo.ts';
import { driftChanges } from './checker.ts';
import { mostSevere } from './drift-diff.ts';
import { hashTools, reduceTool } from './schema-hash.ts';
import type { DriftEvent, ObservedToolsInput, ToolObservation } from '../model/health.ts';
import { checkObserved } from './observed-rules.ts';

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

  /** Stores the list in the caller's project; names and the list's size are checked here for every adapter. */
  async record(
    actor: Principal,
    serverName: string,
    input: ObservedToolsInput,
  ): Promise<ToolObservation> {
    enforce(actor, 'write');
    const agentName = checkObserved(serverName, input);
    const projectId = scopeProject(actor, input.projectId || undefined) ?? DEFAULT_PROJECT;
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
        agentName: agentName,
      };
    }
    await saveObservation(
      this.deps.db,
      {
        id: randomUUID(),
        projectId,
        serverName,
        agentName: agentName,
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
      agentName: agentName,
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
