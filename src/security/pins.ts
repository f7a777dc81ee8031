import { createHash } from 'node:crypto';
import { canonicalJson } from '../health/schema-hash.ts';
import type { ToolSnapshot } from '../model/health.ts';
import type { Db } from '../store/db.ts';
import { addPinRows, readPinRows, type PinRow } from '../store/security-pins-repo.ts';
import type { Pin } from './types.ts';

/** The server's own pin row (instructions and serverInfo) has no tool name. */
const SERVER_ROW = '';

/** The server's pin as stored; null before its first pinned scan. */
export async function loadPin(db: Db, projectId: string, serverName: string): Promise<Pin | null> {
  const rows = await readPinRows(db, projectId, serverName);
  if (rows.length === 0) return null;
  const pin: Pin = {
    serverInfo: null,
    instructions: null,
    instructionsPinnedAt: null,
    tools: new Map(),
  };
  for (const r of rows) {
    if (r.toolName === SERVER_ROW) {
      const d = (r.definition ?? {}) as {
        serverInfo?: Record<string, unknown> | null;
        instructions?: string | null;
      };
      pin.serverInfo = d.serverInfo ?? null;
      pin.instructions = d.instructions ?? null;
      pin.instructionsPinnedAt = r.pinnedAt;
    } else {
      pin.tools.set(r.toolName, {
        hash: r.hash,
        definition: r.definition as ToolSnapshot,
        pinnedAt: r.pinnedAt,
      });
    }
  }
  return pin;
}

/**
 * Stores what is new in `pin` (a tool first seen, the server row on the first scan). Pins are
 * never overwritten here: only an operator re-pins, so a changed definition keeps being reported.
 */
export async function savePin(
  db: Db,
  projectId: string,
  serverName: string,
  pin: Pin,
  now: Date,
): Promise<void> {
  const server = { serverInfo: pin.serverInfo, instructions: pin.instructions };
  const rows: PinRow[] = [
    {
      toolName: SERVER_ROW,
      hash: sha256(canonicalJson(server)),
      definition: server,
      pinnedAt: pin.instructionsPinnedAt ?? now,
    },
    ...[...pin.tools].map(([name, t]) => ({
      toolName: name,
      hash: t.hash,
      definition: t.definition,
      pinnedAt: t.pinnedAt,
    })),
  ];
  await addPinRows(db, projectId, serverName, rows);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
