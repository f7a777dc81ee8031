import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { findBaseline, findToolSnapshot, saveCheck } from '../store/health-repo.ts';
import { classifyCheck } from './classify.ts';
import { diffTools, mostSevere } from './drift-diff.ts';
import type { GuardedFetch } from '../net/guarded-fetch.ts';
import type { ProbeOutcome, ProbeRequest } from './mcp-adapter.ts';
import { hashTools, reduceTool } from './schema-hash.ts';
import type {
  CheckTarget,
  CheckedStatus,
  DriftChange,
  DriftEvent,
  HealthResult,
  ToolSnapshot,
} from '../model/health.ts';

/**
 * One health check (docs/health.md#what-a-check-does-and-how-it-is-classified): probe the server, hash its tools, compare with the previous
 * successful check (the drift baseline, docs/health.md#schema-hash-and-drift), classify, store. Never throws for a server
 * problem: those are results.
 */
/** A check cancelled by its caller (the monitor stopping): nothing is stored or announced. */
export class CheckCancelled extends Error {
  constructor() {
    super('health check cancelled');
    this.name = 'CheckCancelled';
  }
}

export interface CheckReport {
  result: HealthResult & { status: CheckedStatus };
  drift: DriftEvent | null;
  /** What the probe saw (security scans build their Observation from it; with `inventory` it lists prompts and resources). */
  outcome: ProbeOutcome;
}

export interface CheckOptions {
  /** Also list prompts and resources (a security scan's health check, docs/security.md#how-a-scan-runs). */
  inventory?: boolean;
  /** The clock the check's latency is measured with (ProbeRequest.clock). */
  clock?: () => number;
}

/** What a probe of `target` sends: its launch or URL, credentials, probe tool and deadline. */
export function probeRequest(target: CheckTarget): ProbeRequest {
  return {
    transport: target.transport,
    command: target.command,
    args: target.args,
    env: target.env,
    url: target.url,
    headers: target.headers,
    healthTool: target.healthTool,
    healthToolArgs: target.healthToolArgs,
    timeoutMs: Math.round(target.timeoutSeconds * 1000),
  };
}

/**
 * The MCP client (mcp-adapter.ts: the MCP SDK and zod, about 0.4 MB of code) loads with the first
 * check, not with the server: a server that monitors nothing never needs it
 * (docs/benchmarks.md#start-up-bundled-2026-11-27-0305-0330-utc).
 */
async function probeServer(req: ProbeRequest): Promise<ProbeOutcome> {
  return (await import('./mcp-adapter.ts')).probeServer(req);
}

/** `guardedFetch` is given for targets whose URL came through the API (docs/health.md#catalog-servers-and-the-outbound-url-policy). */
export async function runCheck(
  db: Db,
  target: CheckTarget,
  signal?: AbortSignal,
  guardedFetch?: GuardedFetch,
  opts: CheckOptions = {},
): Promise<CheckReport> {
  if (signal?.aborted) throw new CheckCancelled();
  // checked_at is when the check started, like a scrape timestamp; latency_ms says how long it took.
  const checkedAt = new Date();
  const outcome = await probeServer({
    ...probeRequest(target),
    signal,
    guardedFetch,
    inventory: opts.inventory,
    clock: opts.clock,
  });
  const base = {
    id: randomUUID(),
    projectId: target.projectId,
    serverName: target.name,
    checkedAt,
    transport: target.transport,
    serverInfo: outcome.serverInfo,
    protocolVersion: outcome.protocolVersion,
  };
  if (!outcome.ok && outcome.kind === 'cancelled') throw new CheckCancelled();
  if (!outcome.ok) {
    const result = {
      ...base,
      status: 'down' as const,
      latencyMs: null,
      toolsCount: null,
      schemaHash: null,
      error: outcome.error,
      schemaDrift: false,
    };
    await saveCheck(db, { result, instructions: null, tools: null, drift: null });
    return { result, drift: null, outcome };
  }

  const tools = outcome.tools.map(reduceTool);
  const hash = hashTools(tools);
  const baseline = await findBaseline(db, target.projectId, target.name);
  const changed =
    baseline !== null &&
    (baseline.schemaHash !== hash || (baseline.instructions ?? null) !== outcome.instructions);
  let drift: DriftEvent | null = null;
  if (baseline && changed) {
    const before =
      baseline.schemaHash === hash ? tools : await findToolSnapshot(db, baseline.schemaHash);
    const changes = driftChanges(before, tools, baseline.instructions, outcome.instructions);
    drift = {
      id: randomUUID(),
      projectId: target.projectId,
      serverName: target.name,
      detectedAt: checkedAt,
      previousHash: baseline.schemaHash,
      currentHash: hash,
      classification: mostSevere(changes),
      changes,
    };
  }
  const status = classifyCheck({
    reachable: true,
    invalidSchema: outcome.invalidTools !== null,
    probeFailed: outcome.probeError !== null,
    drift: drift !== null,
  });
  const problems = [
    outcome.invalidTools,
    outcome.probeError,
    drift ? `schema drift: ${drift.changes.length} change(s), ${drift.classification}` : null,
  ].filter((p): p is string => p !== null);
  const result = {
    ...base,
    status,
    latencyMs: outcome.latencyMs,
    toolsCount: tools.length,
    schemaHash: hash,
    error: problems.length > 0 ? problems.join('; ') : null,
    schemaDrift: drift !== null,
  };
  // The snapshot is stored when the hash is new to this server; unchanged checks write one row.
  const snapshot = baseline?.schemaHash === hash ? null : tools;
  await saveCheck(db, { result, instructions: outcome.instructions, tools: snapshot, drift });
  return { result, drift, outcome };
}

export function driftChanges(
  before: ToolSnapshot[] | null,
  after: ToolSnapshot[],
  instrBefore: string | null,
  instrAfter: string | null,
): DriftChange[] {
  if (before === null) {
    // The baseline's snapshot is gone (retention): all we know is that the hash moved.
    return [
      {
        change_type: 'schema_unclassified',
        classification: 'WARNING',
        tool_name: null,
        param_name: null,
        param_type: null,
        detail: 'previous tool list not available',
      },
    ];
  }
  const changes = diffTools(before, after, { before: instrBefore, after: instrAfter });
  return changes.length > 0
    ? changes
    : [
        {
          change_type: 'schema_unclassified',
          classification: 'WARNING',
          tool_name: null,
          param_name: null,
          param_type: null,
          detail: 'hash changed without a classified difference',
        },
      ];
}
