import { and, desc, eq, sql } from 'drizzle-orm';
import type { DriftEvent, ToolSnapshot } from '../model/health.ts';
import type { Db } from './db.ts';
import { toPg } from './pg-text.ts';
import { driftEvents, observedToolLists, toolSchemas } from './schema-health.ts';

/** Tool lists agents posted (POST /api/servers/{name}/tools) and the drift they showed. */

export interface Observation {
  id: string;
  projectId: string;
  serverName: string;
  agentName: string | null;
  schemaHash: string;
  toolsCount: number;
  observedAt: Date;
}

/** The hash of the server's newest observed tool list: the drift baseline of the next one. */
export async function findObservedBaseline(
  db: Db,
  projectId: string,
  serverName: string,
): Promise<string | null> {
  const [row] = await db
    .select({ hash: observedToolLists.schemaHash })
    .from(observedToolLists)
    .where(
      and(eq(observedToolLists.projectId, projectId), eq(observedToolLists.serverName, serverName)),
    )
    .orderBy(desc(observedToolLists.observedAt))
    .limit(1);
  return row?.hash ?? null;
}

/**
 * Stores the observation, its snapshot (once per hash) and its drift event in one transaction. What
 * an agent posts is hostile text like a server's own: characters PostgreSQL refuses are escaped in the
 * tools and changes (pg-text.ts); names with a NUL are refused before (health/observed-tools.ts).
 */
export async function saveObservation(
  db: Db,
  o: Observation,
  tools: ToolSnapshot[],
  drift: DriftEvent | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .insert(toolSchemas)
      .values({ hash: o.schemaHash, tools: toPg(tools) })
      .onConflictDoUpdate({ target: toolSchemas.hash, set: { lastSeenAt: sql`now()` } });
    await tx.insert(observedToolLists).values(o);
    if (drift) {
      await tx.insert(driftEvents).values({
        id: drift.id,
        projectId: drift.projectId,
        serverName: drift.serverName,
        detectedAt: drift.detectedAt,
        previousHash: drift.previousHash,
        currentHash: drift.currentHash,
        classification: drift.classification,
        changes: toPg(drift.changes),
        resultId: null,
        observedBy: 'agent',
        agentName: drift.agentName ?? null,
      });
    }
  });
}
