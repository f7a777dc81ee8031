import type { CheckTarget } from '../model/health.ts';
import type { Db } from '../store/db.ts';
import { findBaseline, findToolSnapshot } from '../store/health-repo.ts';
import { targetKey } from '../health/targets.ts';
import type { Observation, Peer } from './types.ts';

/**
 * The other configured servers of each scanned server's project (cross-server shadowing): as this
 * run observed them, else as their latest successful health check stored them (a server down now,
 * or not part of a one-server scan). A server never seen has no tools.
 */
export async function collectPeers(
  db: Db,
  all: readonly CheckTarget[],
  observed: ReadonlyMap<string, Observation>,
): Promise<Map<string, Peer>> {
  const peers = new Map<string, Peer>();
  await Promise.all(
    all.map(async (t) => {
      const key = targetKey(t.projectId, t.name);
      const obs = observed.get(key);
      const tools = obs?.reachable
        ? obs.tools.map((x) => ({
            name: String(x.name),
            description: typeof x.description === 'string' ? x.description : null,
          }))
        : await storedTools(db, t);
      peers.set(key, { name: t.name, tools });
    }),
  );
  return peers;
}

/** The peers of one target: every other server of its project. */
export function peersOf(
  target: CheckTarget,
  all: readonly CheckTarget[],
  peers: ReadonlyMap<string, Peer>,
): Peer[] {
  return all
    .filter((t) => t.projectId === target.projectId && t.name !== target.name)
    .map((t) => peers.get(targetKey(t.projectId, t.name)))
    .filter((p): p is Peer => p !== undefined);
}

async function storedTools(db: Db, t: CheckTarget): Promise<Peer['tools']> {
  const baseline = await findBaseline(db, t.projectId, t.name);
  const tools = baseline ? await findToolSnapshot(db, baseline.schemaHash) : null;
  return (tools ?? []).map((x) => ({
    name: x.name,
    description: typeof x.description === 'string' ? x.description : null,
  }));
}
