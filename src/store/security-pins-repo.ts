import { and, eq } from 'drizzle-orm';
import type { Db } from './db.ts';
import { fromPg, fromPgText, pgText, toPg } from './pg-text.ts';
import { securityPins } from './schema-security.ts';

/**
 * Trust-on-first-use pins of a server (schema-security.ts). Rows are written only when new:
 * a pin that exists is never overwritten by a scan, so a rug pull keeps showing until an
 * operator re-pins. Tool names and definitions are the server's text: pg-text.ts escapes them.
 */
export interface PinRow {
  /** '' for the server itself (instructions and serverInfo). */
  toolName: string;
  hash: string;
  definition: unknown;
  pinnedAt: Date;
}

export async function readPinRows(
  db: Db,
  projectId: string,
  serverName: string,
): Promise<PinRow[]> {
  const rows = await db
    .select()
    .from(securityPins)
    .where(and(eq(securityPins.projectId, projectId), eq(securityPins.serverName, serverName)));
  return rows.map((r) => ({
    toolName: fromPgText(r.toolName),
    hash: r.hash,
    definition: fromPg(r.definition),
    pinnedAt: r.pinnedAt,
  }));
}

/** Adds the rows not pinned yet; existing pins stay as they are. */
export async function addPinRows(
  db: Db,
  projectId: string,
  serverName: string,
  rows: readonly PinRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(securityPins)
    .values(
      rows.map((r) => ({
        projectId,
        serverName,
        toolName: pgText(r.toolName),
        hash: r.hash,
        definition: toPg(r.definition),
        pinnedAt: r.pinnedAt,
      })),
    )
    .onConflictDoNothing();
}
